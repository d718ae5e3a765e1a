package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Approvals are one-shot. The mutating webhook runs before the validating
// one, so when /mutate strips crdguard.dev/approve, /validate no longer sees
// it; the approval travels to /validate as a new last-approval record
// instead, and /validate evaluates the object with the approve annotation
// put back. A record that is unchanged from the stored object's is an old
// approval and lifts nothing, so the next update needs a new one.
//
// An approval that lifted nothing stays on the object, with its record, so
// that it can approve a DELETE: the engine honours it there only with that
// record, and refuses the record to anyone but the approver it names.

// approvalPatches write the record of an admitted approval, and strip the
// approval itself once it has lifted a denial.
func approvalPatches(a *policies.Approval, now time.Time) ([]jsonpatch.Operation, error) {
	value, err := json.Marshal(policies.ApprovalRecord{User: a.User, Rules: a.Rules, Reason: a.Reason, Time: now.UTC().Format(time.RFC3339)})
	if err != nil {
		return nil, err
	}
	var patches []jsonpatch.Operation
	if a.Lifted {
		patches = append(patches, jsonpatch.NewOperation("remove", annotationPath(v1alpha1.ApproveAnnotation), nil))
	}
	return append(patches, jsonpatch.NewOperation("add", annotationPath(v1alpha1.LastApprovalAnnotation), string(value))), nil
}

// annotationPath is the JSON pointer of an annotation; "/" in the key is
// escaped as "~1" (RFC 6901).
func annotationPath(key string) string {
	key = strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
	return "/metadata/annotations/" + key
}

// restoreApproval returns the object /validate evaluates: obj itself, or,
// when /mutate consumed an approval in this very request, a copy with the
// approve annotation put back so the engine lifts the same denials.
func restoreApproval(obj, old *unstructured.Unstructured, user string) *unstructured.Unstructured {
	if obj == nil {
		return obj
	}
	value, ok := obj.GetAnnotations()[v1alpha1.LastApprovalAnnotation]
	if !ok {
		return obj
	}
	if _, pending := obj.GetAnnotations()[v1alpha1.ApproveAnnotation]; pending {
		return obj
	}
	if old != nil && old.GetAnnotations()[v1alpha1.LastApprovalAnnotation] == value {
		return obj
	}
	var record policies.ApprovalRecord
	if err := json.Unmarshal([]byte(value), &record); err != nil || record.User != user || len(record.Rules) == 0 || record.Reason == "" {
		return obj
	}
	restored := obj.DeepCopy()
	annotations := restored.GetAnnotations()
	annotations[v1alpha1.ApproveAnnotation] = fmt.Sprintf("%s: %s", strings.Join(record.Rules, ","), record.Reason)
	restored.SetAnnotations(annotations)
	return restored
}
