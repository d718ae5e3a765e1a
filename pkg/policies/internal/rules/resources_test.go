package rules

import (
	"math"
	"math/big"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// TestRatioBandWholeWithin checks the int64 shortcut of the ratio test:
// it may only say "within" where the exact test says so too, and it
// leaves fractions, zero or negative requests and overflowing products to
// the exact test.
func TestRatioBandWholeWithin(t *testing.T) {
	exclusive := RatioBand{Resource: "cpu", Min: big.NewRat(3, 2), Max: big.NewRat(4, 1), MinExclusive: true, MaxExclusive: true}
	inclusive := RatioBand{Resource: "cpu", Min: big.NewRat(3, 2), Max: big.NewRat(4, 1)}
	for _, tc := range []struct {
		band           RatioBand
		request, limit string
		want           bool
	}{
		{exclusive, "2", "4", true},
		{exclusive, "4Gi", "8Gi", true},
		{exclusive, "2", "3", false},    // exactly 1.5×, excluded
		{inclusive, "2", "3", true},     // exactly 1.5×, included
		{exclusive, "1", "4", false},    // exactly 4×, excluded
		{inclusive, "1", "4", true},     // exactly 4×, included
		{inclusive, "1", "5", false},    // above
		{inclusive, "500m", "1", false}, // not whole: left to the exact test
		{inclusive, "0", "0", false},    // zero request: left to the exact test
		{inclusive, "-1", "-2", false},  // negative request: left to the exact test
		{inclusive, "4E", "8E", false},  // 4E×4 overflows: left to the exact test
		{exclusive, "1E", "2E", true},   // 2E×1 and 1E×4 fit
	} {
		request, limit := resource.MustParse(tc.request), resource.MustParse(tc.limit)
		if got := tc.band.wholeWithin(request, limit); got != tc.want {
			t.Errorf("wholeWithin(%s, %s) = %v, want %v", tc.request, tc.limit, got, tc.want)
		}
		if tc.want && tc.band.exactViolation(quantity{Quantity: request}, quantity{Quantity: limit}) != "" {
			t.Errorf("%s over %s: within by the shortcut but not by the exact test", tc.limit, tc.request)
		}
	}
	if _, ok := multiply(math.MaxInt64/2+1, 2); ok {
		t.Error("multiply did not report an overflow")
	}
	if _, ok := multiply(-1, math.MinInt64); ok {
		t.Error("multiply did not report -1 × MinInt64")
	}
}
