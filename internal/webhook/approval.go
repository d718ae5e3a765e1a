package webhook

import (
	"strings"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// The approval protocol is pkg/policies' (see its package comment); this
// file carries out the webhook's part. The mutating webhook runs before
// the validating one, so when /mutate strips an approval it used,
// /validate no longer sees it: the approval travels to /validate as a new
// last-approval record instead, and /validate evaluates the object with
// the approve annotation put back.

// approvalPatches write the record of an admitted approval, signed for
// req's object with req's key, and strip the approval itself once it has
// lifted a denial.
func approvalPatches(req *policies.Request, a *policies.Approval, now time.Time) ([]jsonpatch.Operation, error) {
	value, err := policies.FormatApprovalRecord(req, a, now)
	if err != nil {
		return nil, err
	}
	var patches []jsonpatch.Operation
	if a.Lifted {
		patches = append(patches, jsonpatch.NewOperation("remove", annotationPath(v1alpha1.ApproveAnnotation), nil))
	}
	return append(patches, jsonpatch.NewOperation("add", annotationPath(v1alpha1.LastApprovalAnnotation), value)), nil
}

// annotationPath is the JSON pointer of an annotation; "/" in the key is
// escaped as "~1" (RFC 6901).
func annotationPath(key string) string {
	return "/metadata/annotations/" + jsonPointerEscaper.Replace(key)
}

var jsonPointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// restoreApproval returns the object /validate evaluates: obj itself, or,
// when /mutate consumed an approval in this very request, a copy with the
// approve annotation put back so the engine lifts the same denials. The
// engine still judges the record: a forged one is denied there.
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
	record, err := policies.ParseApprovalRecord(value)
	if err != nil || record.User != user {
		return obj
	}
	approval, err := policies.FormatApproval(policies.RequestedApproval{Names: record.Rules, Reason: record.Reason})
	if err != nil {
		return obj
	}
	restored := obj.DeepCopy()
	annotations := restored.GetAnnotations()
	annotations[v1alpha1.ApproveAnnotation] = approval
	restored.SetAnnotations(annotations)
	return restored
}
