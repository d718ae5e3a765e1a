package app

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestCRDGuardOptions(t *testing.T) {
	got := checkOptions(t, []string{"--policies", examplePolicy,
		"--guard-crds", "--guard-crds-selector", "crdguard.dev/guard=true,tier!=test",
		"--guard-crd-names", "widgets.example.io,gadgets.example.io",
		"--crd-approvers-users", "alice,bob", "--crd-approvers-groups", "platform", "--crd-approvers-service-accounts", "ci/releaser",
		"--crd-replay-max-objects", "50", "--crd-replay-page-size", "10", "--crd-replay-timeout", "3s",
	}, func(o *Options) {
		o.Policies = []string{examplePolicy}
		o.GuardCRDs, o.GuardCRDsSelector = true, "crdguard.dev/guard=true,tier!=test"
		o.GuardCRDNames = []string{"widgets.example.io", "gadgets.example.io"}
		o.CRDApproverUsers, o.CRDApproverGroups = []string{"alice", "bob"}, []string{"platform"}
		o.CRDApproverServiceAccounts = []string{"ci/releaser"}
		o.CRDReplayMaxObjects, o.CRDReplayPageSize, o.CRDReplayTimeout = 50, 10, 3*time.Second
	})

	guard, err := got.crdGuard(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if guard.Client == nil || guard.MaxObjects != 50 || guard.PageSize != 10 || guard.Timeout != 3*time.Second {
		t.Errorf("guard %+v", guard)
	}
	if !guard.Selector.Matches(labels.Set{"crdguard.dev/guard": "true"}) || guard.Selector.Matches(labels.Set{"crdguard.dev/guard": "true", "tier": "test"}) {
		t.Errorf("selector %s", guard.Selector)
	}
	if diff := cmp.Diff([]string{"widgets.example.io", "gadgets.example.io"}, guard.Names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(v1alpha1.Approvers{Users: []string{"alice", "bob"}, Groups: []string{"platform"}, ServiceAccounts: []string{"ci/releaser"}}, guard.Approvers); diff != "" {
		t.Errorf("approvers (-want +got):\n%s", diff)
	}

	// Off by default: no guard, /validate-crd unserved.
	off := NewOptions()
	if guard, err := off.crdGuard(&rest.Config{}); err != nil || guard != nil {
		t.Errorf("default options: guard %v, %v; want none", guard, err)
	}
}

func TestCRDGuardOptionsInvalid(t *testing.T) {
	checkOptionsErrors(t, []string{"--policies", examplePolicy}, []optionsError{{
		name: "selection without --guard-crds",
		args: []string{"--guard-crds-selector", "a=b"},
		want: `guard-crds: Invalid value: false: --guard-crds-selector and --guard-crd-names need --guard-crds`,
	}, {
		name: "names without --guard-crds",
		args: []string{"--guard-crd-names", "widgets.example.io"},
		want: `guard-crds: Invalid value: false: --guard-crds-selector and --guard-crd-names need --guard-crds`,
	}, {
		name: "nothing selected",
		args: []string{"--guard-crds"},
		want: `guard-crds-selector: Required value: --guard-crds needs --guard-crds-selector or --guard-crd-names`,
	}, {
		name: "bad selector and bounds",
		args: []string{"--guard-crds", "--guard-crds-selector", "a==b==c",
			"--crd-replay-max-objects", "0", "--crd-replay-page-size", "-1", "--crd-replay-timeout", "0s"},
		want: `[crd-replay-max-objects: Invalid value: 0: must be positive, crd-replay-page-size: Invalid value: -1: must be positive, ` +
			`crd-replay-timeout: Invalid value: "0s": must be positive, guard-crds-selector: Invalid value: "a==b==c": found '==', expected: ',' or 'end of string']`,
	}, {
		name: "service account approver not namespace/name",
		args: []string{"--guard-crds", "--guard-crd-names", "widgets.example.io", "--crd-approvers-service-accounts", "ci/releaser,releaser"},
		want: `crd-approvers-service-accounts[1]: Invalid value: "releaser": must be "namespace/name"`,
	}, {
		name: "empty selector",
		args: []string{"--guard-crds", "--guard-crds-selector", " "},
		want: `guard-crds-selector: Invalid value: " ": selects nothing`,
	}, {
		name: "not a duration",
		args: []string{"--crd-replay-timeout", "soon"},
		want: `invalid argument "soon" for "--crd-replay-timeout" flag: time: invalid duration "soon"`,
	}})
}
