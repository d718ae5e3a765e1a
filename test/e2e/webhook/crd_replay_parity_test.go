package webhook

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/report"
)

const sprocketCRD = "sprockets.guard-e2e.example.io"

// storedCause is a /validate-crd cause naming a stored object: the object,
// its field path, the class as its message puts it, and the rest.
var storedCause = regexp.MustCompile(`^Forbidden: stored Sprocket (\S+): (\S+): ((rejected on update|ratchet-tolerated|pruned): .*)$`)

// causeClasses are the classes as the messages put them.
var causeClasses = map[string]string{"rejected on update": "rejected-on-update", "ratchet-tolerated": "ratchet-tolerated", "pruned": "pruned"}

// TestCRDReplayParity: `crdguard diff --objects` (the built CLI) and
// /validate-crd behind the real API server, given the same CRD change and
// the same stored objects, give the same verdict and name the same objects
// and field paths with the same classes and messages. The change's
// breaking diff check is approved by alice in the webhook and waived in
// the CLI, so the stored objects alone decide. The CLI reads the objects
// and the old CRD as kubectl prints them from the cluster; the webhook
// lists them itself, two at a time (--crd-replay-page-size=2).
func TestCRDReplayParity(t *testing.T) {
	ctx := t.Context()
	installCRD(t, guardedCRD("sprocket", "Sprocket"))
	ns := namespace(t)
	for name, spec := range map[string]map[string]any{
		"plain": {"size": int64(3), "mode": "fast"},
		"big":   {"size": int64(8)},
		"noted": {"size": int64(1), "note": "keep me"},
		"slow":  {"mode": "slow"},
		"small": {"size": int64(2)},
	} {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "guard-e2e.example.io/v1", "kind": "Sprocket",
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     spec,
		}}
		// The API server's discovery of the new kind can lag its establishment.
		eventually(t, "storing Sprocket "+name, func(ctx context.Context) (bool, string) {
			err := cluster.client.Create(ctx, obj.DeepCopy())
			return err == nil || apierrors.IsAlreadyExists(err), errString(err)
		})
	}
	registerCRDGuard(t)
	eventually(t, "/validate-crd in force", func(ctx context.Context) (bool, string) {
		err := updateCRD(ctx, cluster.client, sprocketCRD, func(crd *apiextensionsv1.CustomResourceDefinition) {
			editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) { delete(p, "note") })
		}, client.DryRunAll)
		return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "validate-crd.crdguard.dev"), errString(err)
	})

	dir := t.TempDir()
	write := func(name, data string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	get := func(args ...string) string {
		t.Helper()
		res := runKubectl(t, "admin", append([]string{"get", "-o", "yaml"}, args...)...)
		if !res.ok {
			t.Fatalf("kubectl get %v:\n%s", args, res)
		}
		return res.stdout
	}
	objects := write("objects.yaml", get("sprockets.guard-e2e.example.io", "--all-namespaces"))
	old := write("old.yaml", get("crd", sprocketCRD))

	for _, tc := range []struct {
		name string
		// check is the diff check the change is breaking by, approved and
		// waived; "" when it is safe.
		check string
		edit  func(*apiextensionsv1.CustomResourceDefinition)
		// want are the findings, "namespace/name field class".
		want []string
	}{{
		name:  "rejected on update",
		check: "validation-rules-changed",
		// A root rule is re-evaluated on every update: nothing ratchets.
		edit: func(crd *apiextensionsv1.CustomResourceDefinition) {
			crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations = apiextensionsv1.ValidationRules{{
				Rule: "!has(self.spec.mode) || self.spec.mode != 'slow'", FieldPath: ".spec.mode", Message: "slow mode is gone",
			}}
		},
		want: []string{ns + "/slow spec.mode rejected-on-update"},
	}, {
		name:  "ratchet-tolerated",
		check: "maximum-changed",
		edit: func(crd *apiextensionsv1.CustomResourceDefinition) {
			editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) {
				size := p["size"]
				size.Maximum = ptr.To(5.0)
				p["size"] = size
			})
		},
		want: []string{ns + "/big spec.size ratchet-tolerated"},
	}, {
		name:  "pruned",
		check: "field-removed",
		edit: func(crd *apiextensionsv1.CustomResourceDefinition) {
			editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) { delete(p, "note") })
		},
		want: []string{ns + "/noted spec.note pruned"},
	}, {
		name: "safe",
		edit: func(crd *apiextensionsv1.CustomResourceDefinition) {
			editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) {
				p["color"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
			})
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			// The CLI: the stored CRD changed by edit, the waiver.
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := cluster.client.Get(ctx, client.ObjectKey{Name: sprocketCRD}, crd); err != nil {
				t.Fatal(err)
			}
			tc.edit(crd)
			crd.APIVersion, crd.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
			data, err := yaml.Marshal(crd)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"diff", "-o", "json", "--objects", objects}
			if tc.check != "" {
				args = append(args, "--config", write(tc.check+".yaml", "waivers:\n- check: "+tc.check+"\n  path: \"*\"\n  reason: approved in the webhook's request\n"))
			}
			cliAllowed, cliFindings := replayVerdict(t, append(args, old, write(tc.name+".yaml", string(data)))...)

			// The webhook: the same change, approved by alice, as a dry run.
			err = updateCRD(ctx, userClient(t, "alice"), sprocketCRD, func(crd *apiextensionsv1.CustomResourceDefinition) {
				tc.edit(crd)
				if tc.check != "" {
					if crd.Annotations == nil {
						crd.Annotations = map[string]string{}
					}
					crd.Annotations[v1alpha1.ApproveAnnotation] = tc.check + ": parity"
				}
			}, client.DryRunAll)
			webhookAllowed := err == nil
			var webhookFindings []string
			if !webhookAllowed {
				for _, c := range causes(t, err) {
					_, message, _ := strings.Cut(c, ": ")
					m := storedCause.FindStringSubmatch(message)
					if m == nil {
						t.Errorf("a cause that names no stored object: %s", c)
						continue
					}
					key := m[1] + " " + m[2] + " " + causeClasses[m[4]]
					webhookFindings = append(webhookFindings, key)
					// The webhook bounds a cause's length; what it keeps is
					// the CLI's message.
					if cli, kept := cliFindings[key], strings.TrimSuffix(m[3], "…"); !strings.HasPrefix(cli, kept) {
						t.Errorf("%s: the webhook says %q, the CLI %q", key, m[3], cli)
					}
				}
			}
			slices.Sort(webhookFindings)

			if cliAllowed != webhookAllowed {
				t.Errorf("crdguard diff allowed=%v, /validate-crd allowed=%v (%v)", cliAllowed, webhookAllowed, err)
			}
			if want := len(tc.want) == 0; webhookAllowed != want {
				t.Errorf("/validate-crd allowed=%v, want %v: %v", webhookAllowed, want, err)
			}
			cliKeys := slices.Sorted(maps.Keys(cliFindings))
			if !slices.Equal(cliKeys, webhookFindings) || !slices.Equal(webhookFindings, tc.want) {
				t.Errorf("findings\n crdguard diff: %q\n /validate-crd: %q\n want:          %q", cliKeys, webhookFindings, tc.want)
			}
		})
	}
}

// replayVerdict runs `crdguard diff -o json` and returns whether it
// passed (exit 0; 1 is a failure, anything else a broken run) and its
// replay findings, "namespace/name field class" → message. Every other
// finding must be waived: the stored objects alone decide.
func replayVerdict(t *testing.T, args ...string) (bool, map[string]string) {
	t.Helper()
	var rep report.Report
	code, _ := crdguardJSON(t, &rep, args...)
	findings := map[string]string{}
	for _, res := range rep.Results {
		if res.Error != "" || res.Skipped {
			t.Errorf("%s %s: error %q, skipped %v", res.Kind, res.Name, res.Error, res.Skipped)
		}
		for _, v := range res.Violations {
			switch {
			case v.Policy == "replay":
				findings[res.Namespace+"/"+res.Name+" "+v.Field+" "+v.Rule] = v.Message
			case v.Enforcement == v1alpha1.Deny:
				t.Errorf("a finding not waived: %+v", v)
			}
		}
	}
	return code == 0, findings
}
