// Package policies evaluates admission requests against GuardPolicies and
// CRD schemas. Engine.Evaluate is the one decision path: the webhook, the CLI
// and operators' own tests call it the same way, so they get the same
// verdict.
//
// The rule kinds are in internal/rules, one per file, listed in its
// registry.go. A rule reports problems as field errors; it never decides
// whether they deny, warn or audit: enforcement comes from the policy and is
// applied by the engine. The vap package compiles the same rules to
// ValidatingAdmissionPolicies.
//
// # Approvals
//
// The approval protocol is written here, in approval.go and
// approval_record.go; the webhook (/mutate, /validate, /validate-crd) and
// the vap compiler only carry it out.
//
//   - Grammar: crdguard.dev/approve is "<name>[,<name>...]: <reason>",
//     read by ParseApproval and written by FormatApproval, nowhere else.
//     A GuardPolicy approval names rules ("rule", or "policy/rule" for one
//     policy's); the CRD guard's names its checks.
//   - Who may write: only an approver (IsApprover) of every rule it names.
//     Writing an approval is approving, so anyone else's is denied at the
//     annotation.
//   - Freshness: an approval counts only in the request that writes it
//     (AnnotationWritten: CREATE, or an UPDATE that adds or changes it);
//     one carried over from the stored object approves nothing.
//   - Records: crdguard.dev/last-approval is crdguard's record of an
//     approval it admitted (ApprovalRecord), written by the mutating
//     webhook with FormatApprovalRecord. An approval that lifted a denial
//     is stripped and travels to /validate as its record; one that lifted
//     none stays on the object with its record, for a later DELETE, which
//     carries no new object and may use the stored approval only with its
//     record, by an approver.
//   - Signatures: a record counts for a DELETE only when it carries the
//     HMAC-SHA256 of the webhook's ApprovalKey over the record and the
//     object's group, kind, namespace and name. A record crdguard did not
//     write never counts: one written before its policy existed, or on an
//     object crdguard's webhook never saw, has no signature a writer
//     without the key could make, and one copied from another object does
//     not verify. Where the key is absent (the offline CLI, a webhook run
//     without --approval-key-file) no stored approval approves a DELETE,
//     and the finding says why: crdguard refuses to guess that a record is
//     its own.
//   - Writing a record: a record written by a request is denied, whatever
//     the rules' enforcement, when it does not parse, names a rule no
//     policy guarding the object has, lacks the key's signature, records
//     someone else's approval, or a rule its writer may not approve.
//
// A ValidatingAdmissionPolicy cannot verify an HMAC: the compiled checks
// (package vap) honour a record only in the request that writes it, for
// the requesting user and when that user is an approver, which is what
// writing crdguard.dev/approve grants anyway; Deny rules that run on
// DELETE, where a stored record decides, stay with the webhook.
package policies
