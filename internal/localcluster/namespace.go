package localcluster

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EnsureNamespace creates the namespace name with labels, or adds the
// labels to the existing one: a test run again (-count) finds its
// namespace, as envtest runs no namespace controller to delete it.
func EnsureNamespace(ctx context.Context, c client.Client, name string, labels map[string]string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	err := c.Create(ctx, ns)
	if apierrors.IsAlreadyExists(err) {
		err = c.Patch(ctx, ns, client.MergeFrom(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
	}
	if err != nil {
		return fmt.Errorf("namespace %s: %w", name, err)
	}
	return nil
}

// NamespaceName turns name (a test's, say) into a namespace name of at
// most maxLen characters: lower case letters and digits, anything else a
// dash, no dash at either end.
func NamespaceName(name string, maxLen int) string {
	ns := strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, name), "-")
	if len(ns) > maxLen {
		ns = strings.TrimRight(ns[:maxLen], "-")
	}
	return ns
}
