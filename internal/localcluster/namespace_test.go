package localcluster

import "testing"

func TestNamespaceName(t *testing.T) {
	tests := []struct {
		name   string
		maxLen int
		want   string
	}{
		{"TestCreate", 63, "testcreate"},
		{"wh-TestCRDGuard/denied_update", 63, "wh-testcrdguard-denied-update"},
		{"_Test_", 63, "test"},
		// Cut at the limit, and no dash left at the cut.
		{"abcd_efgh", 5, "abcd"},
		{"abcdefgh", 5, "abcde"},
	}
	for _, tt := range tests {
		if got := NamespaceName(tt.name, tt.maxLen); got != tt.want {
			t.Errorf("NamespaceName(%q, %d) = %q, want %q", tt.name, tt.maxLen, got, tt.want)
		}
	}
}
