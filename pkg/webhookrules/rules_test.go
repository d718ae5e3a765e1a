package webhookrules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/crdguard/crdguard/pkg/policies"
)

// compute computes the rules of the GuardPolicies in policyYAML against
// examples/mysql's CRD and the built-in kinds.
func compute(t *testing.T, policyYAML string) (Rules, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policies.yaml")
	if err := os.WriteFile(path, []byte(policyYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	engine, _, err := policies.Files{CRDs: []string{"../../examples/mysql/crd.yaml"}, Policies: []string{path}}.Engine(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return Compute(engine.Routes(), OfflineMapper(engine.Schemas()))
}

// rule is a rule of scope "*".
func rule(groups, versions, resources []string, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
	all := admissionregistrationv1.AllScopes
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: &all},
	}
}

const (
	create = admissionregistrationv1.Create
	update = admissionregistrationv1.Update
	del    = admissionregistrationv1.Delete
)

// policy is a GuardPolicy with match and one rule of each given kind.
func policy(name, match string, ruleYAML ...string) string {
	return "apiVersion: crdguard.dev/v1alpha1\nkind: GuardPolicy\nmetadata:\n  name: " + name + "\nspec:\n  match:\n" + indent(match, "    ") +
		"  rules:\n" + indent(strings.Join(ruleYAML, ""), "  ") + "---\n"
}

func indent(s, by string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "")
}

const (
	celRule      = "- name: check\n  cel:\n    expression: \"true\"\n"
	defaultsRule = "- name: fill\n  defaults:\n    preset: Workloads\n    limits:\n    - {resource: cpu, requestMultiplier: \"2\"}\n"
)

func TestCompute(t *testing.T) {
	star := []string{"*"}
	tests := []struct {
		name     string
		policies string
		want     Rules
	}{{
		name: "examples/mysql: every operation, and /mutate for its defaults and approvals",
		policies: func() string {
			b, err := os.ReadFile("../../examples/mysql/policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}(),
		want: Rules{
			Validate: []admissionregistrationv1.RuleWithOperations{rule([]string{"db.example.io"}, star, []string{"mysqlclusters"}, create, update, del)},
			Mutate:   []admissionregistrationv1.RuleWithOperations{rule([]string{"db.example.io"}, star, []string{"mysqlclusters"}, create, update)},
		},
	}, {
		name: "union: one rule per group, versions and operations, sorted",
		policies: policy("b-deployments", "resources:\n- {group: apps, kinds: [Deployment]}\noperations: [UPDATE]\n", defaultsRule) +
			policy("a-workloads", "resources:\n- {group: apps, versions: [v1], kinds: [StatefulSet, Deployment]}\n- {group: apps, kinds: [DaemonSet, StatefulSet]}\noperations: [CREATE]\n", celRule) +
			policy("c-core", "resources:\n- {group: \"\", versions: [v1, \"*\"], kinds: [ConfigMap, Secret]}\n- {group: db.example.io, kinds: [\"*\"]}\n", celRule),
		want: Rules{
			Validate: []admissionregistrationv1.RuleWithOperations{
				rule([]string{""}, star, []string{"configmaps", "secrets"}, create, update, del),
				rule([]string{"apps"}, star, []string{"daemonsets", "statefulsets"}, create),
				rule([]string{"apps"}, star, []string{"deployments"}, update),
				rule([]string{"apps"}, []string{"v1"}, []string{"deployments", "statefulsets"}, create),
				rule([]string{"db.example.io"}, star, star, create, update, del),
			},
			// Only b-deployments mutates, and only on the UPDATEs it matches.
			Mutate: []admissionregistrationv1.RuleWithOperations{
				rule([]string{"apps"}, star, []string{"deployments"}, update),
			},
		},
	}, {
		name: "operations of one resource from two policies are unioned",
		policies: policy("creates", "resources:\n- {group: apps, kinds: [Deployment]}\noperations: [CREATE]\n", celRule) +
			policy("updates", "resources:\n- {group: apps, kinds: [Deployment, ReplicaSet]}\noperations: [UPDATE]\n", celRule),
		want: Rules{
			Validate: []admissionregistrationv1.RuleWithOperations{
				rule([]string{"apps"}, star, []string{"deployments"}, create, update),
				rule([]string{"apps"}, star, []string{"replicasets"}, update),
			},
			Mutate: []admissionregistrationv1.RuleWithOperations{},
		},
	}, {
		name: "a DELETE-only policy with approvers: its approval is written by a CREATE or UPDATE, which /mutate records",
		policies: "apiVersion: crdguard.dev/v1alpha1\nkind: GuardPolicy\nmetadata: {name: protect}\nspec:\n  match:\n    resources: [{group: db.example.io, kinds: [MySQLCluster]}]\n    operations: [DELETE]\n" +
			"  approvers: {users: [alice]}\n  rules:\n  - name: keep\n    deletion: {}\n",
		want: Rules{
			Validate: []admissionregistrationv1.RuleWithOperations{rule([]string{"db.example.io"}, star, []string{"mysqlclusters"}, create, update, del)},
			Mutate:   []admissionregistrationv1.RuleWithOperations{rule([]string{"db.example.io"}, star, []string{"mysqlclusters"}, create, update)},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := compute(t, tt.policies)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

// TestComputeIsDeterministic: map order never shows, so a controller that
// writes the rules back finds nothing to change.
func TestComputeIsDeterministic(t *testing.T) {
	policies := policy("many", "resources:\n- {group: apps, kinds: [Deployment, StatefulSet, DaemonSet, ReplicaSet]}\n- {group: batch, kinds: [Job, CronJob]}\n- {group: \"\", kinds: [Pod, Service, ConfigMap, Secret]}\n", celRule, defaultsRule) +
		policy("some", "resources:\n- {group: apps, kinds: [Deployment]}\n- {group: \"\", kinds: [Pod]}\noperations: [DELETE]\n", celRule)
	first, err := compute(t, policies)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := compute(t, policies)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("a second computation differs (-first +again):\n%s", diff)
		}
	}
}

func TestComputeFailsClosed(t *testing.T) {
	tests := []struct {
		name, policies, want string
	}{{
		name:     "a kind no CRD or built-in defines",
		policies: policy("gadgets", "resources:\n- {group: db.example.io, kinds: [MySQLCluster, Gadget]}\n", celRule),
		want:     "GuardPolicy gadgets: kind Gadget.db.example.io has no resource: no CRD or built-in API serves it",
	}, {
		name:     "leases",
		policies: policy("leases", "resources:\n- {group: coordination.k8s.io, kinds: [Lease]}\n", celRule),
		want:     "GuardPolicy leases: kind Lease.coordination.k8s.io cannot be routed: crdguard never guards leases.coordination.k8s.io, events, events.events.k8s.io",
	}, {
		name:     "core events",
		policies: policy("events", "resources:\n- {group: \"\", kinds: [Event, Pod]}\n", celRule),
		want:     "GuardPolicy events: kind Event cannot be routed: crdguard never guards leases.coordination.k8s.io, events, events.events.k8s.io",
	}, {
		name:     "every kind of the core group",
		policies: policy("core", "resources:\n- {group: \"\", kinds: [\"*\"]}\n", celRule),
		want:     `GuardPolicy core: kind "*" of group "" cannot be routed: it includes leases.coordination.k8s.io, events, events.events.k8s.io; name the kinds`,
	}, {
		name:     "group *",
		policies: policy("everything", "resources:\n- {group: \"*\", kinds: [Widget]}\n", celRule),
		want:     `GuardPolicy everything: group "*" cannot be routed: webhook rules name resources within a group, and every kind of every group includes leases.coordination.k8s.io, events, events.events.k8s.io; name the groups`,
	}, {
		name: "every error of every policy",
		policies: policy("a", "resources:\n- {group: db.example.io, kinds: [Gadget, Gizmo]}\n", celRule) +
			policy("b", "resources:\n- {group: events.k8s.io, kinds: [\"*\"]}\n", celRule),
		want: "GuardPolicy a: kind Gadget.db.example.io has no resource: no CRD or built-in API serves it\n" +
			"GuardPolicy a: kind Gizmo.db.example.io has no resource: no CRD or built-in API serves it\n" +
			`GuardPolicy b: kind "*" of group "events.k8s.io" cannot be routed: it includes leases.coordination.k8s.io, events, events.events.k8s.io; name the kinds`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := compute(t, tt.policies)
			if err == nil {
				t.Fatalf("no error; rules %+v", got)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
		})
	}
}
