package app

import (
	"fmt"
	"os"

	"github.com/crdguard/crdguard/pkg/policies"
)

// approvalKey reads --approval-key-file; nil without one. A file that
// cannot sign stops the start: it would leave every stored approval
// unverifiable without a word. It is read when the webhooks are added, as
// the serving certificate is, not by Validate, which runs where the
// mounted Secret does not exist (a rendered chart's args). The key is read
// once: every replica mounts the same Secret, and a changed key takes a
// restart of all of them, which then no longer count the records the old
// key signed.
func (o *Options) approvalKey() (*policies.ApprovalKey, error) {
	if o.ApprovalKeyFile == "" {
		return nil, nil
	}
	data, err := os.ReadFile(o.ApprovalKeyFile)
	if err != nil {
		return nil, fmt.Errorf("--approval-key-file: %w", err)
	}
	key, err := policies.NewApprovalKey(data)
	if err != nil {
		return nil, fmt.Errorf("--approval-key-file %s: %w", o.ApprovalKeyFile, err)
	}
	return key, nil
}
