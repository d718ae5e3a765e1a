package auditor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// writeStatus sets status.audit of each audited GuardPolicy through the
// status subresource: a merge patch of that field only, so it neither
// needs nor races with the policy's spec, and the webhook, which rebuilds
// on spec changes only, does not rebuild for it. A policy deleted since
// the run started is skipped.
func writeStatus(ctx context.Context, c client.Client, audited []string, f *findings, finished metav1.Time) error {
	var errs []error
	for _, name := range audited {
		status := v1alpha1.GuardPolicyStatus{Audit: &v1alpha1.AuditStatus{
			LastRunTime: finished,
			Violations:  int64(f.violationsOf(name)),
		}}
		patch, err := json.Marshal(map[string]any{"status": status})
		if err != nil {
			return err
		}
		policy := &unstructured.Unstructured{}
		policy.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("GuardPolicy"))
		policy.SetName(name)
		err = c.Status().Patch(ctx, policy, client.RawPatch(types.MergePatchType, patch))
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("GuardPolicy %s: writing status: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
