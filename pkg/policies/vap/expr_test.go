package vap

import "testing"

// TestCELIdentifier names compiled checks' variables: snake case, and
// never a leading digit, which CEL identifiers may not have.
func TestCELIdentifier(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"safe-updates", "safe_updates"},
		{"storage.storageClassName_Immutable", "storage_storage_class_name_immutable"},
		{"replicas_NoDecrease", "replicas_no_decrease"},
		{"containers[*].image_MaxMinorSkip", "containers_image_max_minor_skip"},
		{"metadata.labels[app.kubernetes.io/name]_Immutable", "metadata_labels_app_kubernetes_io_name_immutable"},
		{"8ball", "_8ball"},
		{"--", "_"},
	} {
		if got := celIdentifier(tc.name); got != tc.want {
			t.Errorf("celIdentifier(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
