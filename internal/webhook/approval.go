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

// LastApprovalAnnotation records the approval /mutate consumed: who
// approved which rules, why and when. It stays on the stored object as a
// record; /validate honours it only in the request that wrote it.
const LastApprovalAnnotation = "crdguard.dev/last-approval"

// Approvals are one-shot. The mutating webhook runs before the validating
// one, so when /mutate strips crdguard.dev/approve, /validate no longer sees
// it; the approval travels to /validate as a new last-approval record
// instead, and /validate evaluates the object with the approve annotation
// put back. A record that is unchanged from the stored object's is an old
// approval and lifts nothing, so the next update needs a new one.
//
// Writing a record by hand gains nothing over writing the approve
// annotation: the record is honoured only for the user it names when that
// user makes the request, and the engine still checks the user is an
// approver of the policy.

// approvalRecord is the value of LastApprovalAnnotation.
type approvalRecord struct {
	User   string   `json:"user"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason"`
	Time   string   `json:"time"`
}

// newApprovalRecord reads the engine's record of a lifted denial,
// "user=<user> rules=<policy/rule>,... reason=<reason>". The user and the
// reason are known (the request's user, the annotation's reason), so only
// the rules are cut out of the middle: reasons and user names may contain
// anything.
func newApprovalRecord(res *policies.Result, user, annotation string, now time.Time) (approvalRecord, bool) {
	_, reason, _ := strings.Cut(annotation, ":")
	reason = strings.TrimSpace(reason)
	rules, ok := strings.CutPrefix(res.Approval, "user="+user+" rules=")
	if !ok {
		return approvalRecord{}, false
	}
	if rules, ok = strings.CutSuffix(rules, " reason="+reason); !ok || rules == "" {
		return approvalRecord{}, false
	}
	return approvalRecord{User: user, Rules: strings.Split(rules, ","), Reason: reason, Time: now.UTC().Format(time.RFC3339)}, true
}

// approvalPatches strip the approve annotation and write the record.
func approvalPatches(record approvalRecord) ([]jsonpatch.Operation, error) {
	value, err := json.Marshal(record)
	if err != nil {
		return nil, err
	}
	return []jsonpatch.Operation{
		jsonpatch.NewOperation("remove", annotationPath(v1alpha1.ApproveAnnotation), nil),
		jsonpatch.NewOperation("add", annotationPath(LastApprovalAnnotation), string(value)),
	}, nil
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
	value, ok := obj.GetAnnotations()[LastApprovalAnnotation]
	if !ok {
		return obj
	}
	if _, pending := obj.GetAnnotations()[v1alpha1.ApproveAnnotation]; pending {
		return obj
	}
	if old != nil && old.GetAnnotations()[LastApprovalAnnotation] == value {
		return obj
	}
	var record approvalRecord
	if err := json.Unmarshal([]byte(value), &record); err != nil || record.User != user || len(record.Rules) == 0 || record.Reason == "" {
		return obj
	}
	restored := obj.DeepCopy()
	annotations := restored.GetAnnotations()
	annotations[v1alpha1.ApproveAnnotation] = fmt.Sprintf("%s: %s", strings.Join(record.Rules, ","), record.Reason)
	restored.SetAnnotations(annotations)
	return restored
}
