package rules

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestMultiplyQuantity(t *testing.T) {
	tests := []struct {
		name, request, multiplier, want string
	}{
		{"memory", "1Gi", "2", "2Gi"},
		{"cpu", "250m", "1.5", "375m"},
		{"memory", "1Gi", "1.5", "1536Mi"},
		{"memory", "100M", "1.5", "150M"},
		{"cpu", "1", "1.5", "1500m"},
		{"cpu", "2", "1.5", "3"},
		// Bytes are whole: 1395864371.2 is rounded up, never down.
		{"memory", "1Gi", "1.3", "1395864372"},
		{"hugepages-1Gi", "1Gi", "1.3", "1395864372"},
		{"ephemeral-storage", "3", "1.5", "5"},
		// Other resources are exact down to a quantity's nano precision.
		{"cpu", "250m", "1.25", "312500u"},
		{"cpu", "1n", "1.2", "2n"},
		{"example.com/widgets", "1e3", "2", "2e3"},
		{"memory", "4Ei", "1", "4Ei"},
		{"memory", "4Ei", "2", ""}, // 8Ei is beyond the largest quantity: no limit
	}
	for _, tt := range tests {
		got, ok := multiplyQuantity(tt.name, resource.MustParse(tt.request), resource.MustParse(tt.multiplier))
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s %s × %s = %q, %v; want %q", tt.name, tt.request, tt.multiplier, got, ok, tt.want)
		}
	}
}
