package app

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crdguard/crdguard/internal/filetree"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/report"
)

const diffTestdata = "testdata/diff/"

func diffFile(name string) string { return diffTestdata + name }

const legacyPath = "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.legacy"

// skippedConfigMap is the note on the ConfigMap of new-breaking.yaml.
const skippedConfigMap = "crdguard: note: NEW: skipped testdata/diff/new-breaking.yaml:2 (document 1): v1 ConfigMap, not a CustomResourceDefinition\n"

func TestDiffExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		// new-breaking.yaml holds a ConfigMap too: skipped, with a note.
		{name: "breaking", args: []string{diffFile("old.yaml"), diffFile("new-breaking.yaml")}, code: ExitViolations, stderr: skippedConfigMap},
		{name: "safe", args: []string{diffFile("old.yaml"), diffFile("new-safe.yaml")}, code: ExitOK},
		{name: "identical", args: []string{diffFile("old.yaml"), diffFile("old.yaml")}, code: ExitOK},
		{name: "new from stdin", args: []string{diffFile("old.yaml"), "-"}, stdin: readFile(t, diffFile("new-breaking.yaml")), code: ExitViolations,
			stderr: "crdguard: note: NEW: skipped -:2 (document 1): v1 ConfigMap, not a CustomResourceDefinition\n"},
		{name: "waived", args: []string{"--config", diffFile("config-waive.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml")}, code: ExitOK, stderr: skippedConfigMap},
		{name: "expired waiver", args: []string{"--config", diffFile("config-expired.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml")}, code: ExitViolations, stderr: skippedConfigMap},
		{name: "one argument", args: []string{diffFile("old.yaml")}, code: ExitUsage, stderr: "accepts 2 arg(s), received 1"},
		{name: "both stdin", args: []string{"-", "-"}, code: ExitUsage, stderr: "crdguard: standard input (-) can be read once, and it is given to OLD and NEW\n"},
		{name: "stdin and objects", args: []string{"--objects", "-", "-", diffFile("old.yaml")}, code: ExitUsage, stderr: "crdguard: standard input (-) can be read once, and it is given to OLD and --objects\n"},
		{name: "no CRDs", args: []string{diffFile("objects.yaml"), diffFile("objects.yaml")}, code: ExitUsage,
			stderr: "crdguard: OLD testdata/diff/objects.yaml holds no CustomResourceDefinition (--allow-empty compares it as an empty set)\n"},
		{name: "no old CRDs", args: []string{diffFile("objects.yaml"), diffFile("old.yaml")}, code: ExitUsage,
			stderr: "crdguard: OLD testdata/diff/objects.yaml holds no CustomResourceDefinition (--allow-empty compares it as an empty set)\n"},
		{name: "no new CRDs", args: []string{diffFile("old.yaml"), diffFile("objects.yaml")}, code: ExitUsage,
			stderr: "crdguard: NEW testdata/diff/objects.yaml holds no CustomResourceDefinition (--allow-empty compares it as an empty set)\n"},
		{name: "no old CRDs, allowed", args: []string{"--allow-empty", diffFile("objects.yaml"), diffFile("old.yaml")}, code: ExitOK,
			stderr: "crdguard: note: OLD: skipped testdata/diff/objects.yaml:1 (document 1): example.com/v1 Widget, not a CustomResourceDefinition\n" +
				"crdguard: note: OLD: skipped testdata/diff/objects.yaml:6 (document 2): example.com/v1 Widget, not a CustomResourceDefinition\n" +
				"crdguard: note: OLD: skipped testdata/diff/objects.yaml:11 (document 3): example.com/v1 Gadget, not a CustomResourceDefinition\n"},
		{name: "missing file", args: []string{diffFile("nope.yaml"), diffFile("old.yaml")}, code: ExitUsage, stderr: "crdguard: OLD: stat testdata/diff/nope.yaml: no such file or directory\n"},
		{name: "invalid config", args: []string{"--config", diffFile("config-invalid.yaml"), diffFile("old.yaml"), diffFile("old.yaml")}, code: ExitUsage,
			stderr: `crdguard: --config testdata/diff/config-invalid.yaml: [checks[field-removed]: Unsupported value: "Block": supported values: "Deny", "Warn", "Audit", waivers[0].check: Not found: "no-such-check", waivers[0].reason: Required value: say why the change is acceptable]` + "\n"},
		{name: "bad git source", args: []string{"git:nope", diffFile("old.yaml")}, code: ExitUsage, stderr: `crdguard: OLD: "git:nope": want git:REF:PATH` + "\n"},
		{name: "git source without REF", args: []string{diffFile("old.yaml"), "git::crds"}, code: ExitUsage, stderr: `crdguard: NEW: "git::crds": want git:REF:PATH` + "\n"},
		{name: "git source without PATH", args: []string{"git:main:", diffFile("old.yaml")}, code: ExitUsage, stderr: `crdguard: OLD: "git:main:": want git:REF:PATH` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := crdguard(t, tt.stdin, append([]string{"diff"}, tt.args...)...)
			if r.code != tt.code {
				t.Errorf("exit code = %d, want %d\n%s%s", r.code, tt.code, r.stdout, r.stder)
			}
			if tt.stderr == "" && r.stder != "" || !strings.Contains(r.stder, tt.stderr) || strings.HasPrefix(tt.stderr, "crdguard: note:") && r.stder != tt.stderr {
				t.Errorf("stderr = %q, want it to contain %q", r.stder, tt.stderr)
			}
		})
	}
}

func TestDiffText(t *testing.T) {
	r := crdguard(t, "", "diff", diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	want := "--- OLD testdata/diff/old.yaml\n" +
		"+++ NEW testdata/diff/new-breaking.yaml\n" +
		"widgets.example.com changed (new-breaking.yaml:6): 3 breaking, 0 warnings, 0 info\n" +
		"  breaking new-breaking.yaml:24 field-removed ^.spec.legacy: v1: string → <none>: the API server prunes it from stored objects on their next write, and clients setting it lose it silently\n" +
		"  breaking new-breaking.yaml:29 validation-rules-changed ^.spec.color/x-kubernetes-validations[0]: v1: <none> → self != 'red': a new rule on an existing field: stored objects it rejects fail their next update (unless it ratchets on unchanged values); crdguard diff --objects replays the stored objects to decide\n" +
		"  breaking new-breaking.yaml:25 maximum-changed ^.spec.replicas/maximum: v1: 10 → 5: stored values beyond the new limit are rejected on their next update unless left unchanged (ratcheting)\n" +
		"total: 3 breaking, 0 warnings, 0 info in 1 CRD (0 added, 0 removed, 1 changed, 0 unchanged)\n"
	if r.stdout != want {
		t.Errorf("stdout\n got: %s\nwant: %s", r.stdout, want)
	}
}

// TestDiffTextSeverities: every line carries the severity the run gives it,
// breaking first; a waived or reconfigured change also shows its impact.
func TestDiffTextSeverities(t *testing.T) {
	r := crdguard(t, "", "diff", "--config", diffFile("config-waive.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	var got []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "  ") {
			label, _, _ := strings.Cut(strings.TrimSpace(line), " new-breaking.yaml:")
			rule := strings.Fields(strings.SplitN(line, ".yaml:", 2)[1])[1]
			got = append(got, label+" "+rule)
		}
	}
	want := []string{"info (breaking impact) field-removed", "info (breaking impact) validation-rules-changed", "info (breaking impact) maximum-changed"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || r.code != ExitOK {
		t.Errorf("exit %d, lines\n got: %q\nwant: %q\n%s", r.code, got, want, r.stdout)
	}
	if !strings.Contains(r.stdout, "widgets.example.com changed (new-breaking.yaml:6): 0 breaking, 0 warnings, 3 info\n") {
		t.Errorf("waived changes count as info:\n%s", r.stdout)
	}
}

// TestDiffTextDirectories: paths are relative to the directory each side
// was given as, a removed CRD's to OLD, and -q leaves out unchanged CRDs.
func TestDiffTextDirectories(t *testing.T) {
	r := crdguard(t, "", "diff", diffFile("old-dir"), diffFile("new-dir")+"/")
	want := "--- OLD testdata/diff/old-dir\n" +
		"+++ NEW testdata/diff/new-dir/\n" +
		"bolts.example.com added (bolts.yaml:2): 0 breaking, 0 warnings, 1 info\n" +
		"  info     bolts.yaml:5 crd-added metadata.name: <none> → bolts.example.com: a new CRD; nothing existing is affected\n" +
		"gears.example.com removed (OLD gears.yaml:2): 1 breaking, 0 warnings, 0 info\n" +
		"  breaking OLD gears.yaml:5 crd-removed metadata.name: gears.example.com → <none>: applying the new set does not delete the CRD, but whatever prunes it deletes every stored object of its kind\n" +
		"widgets.example.com changed (widgets.yaml:1): 0 breaking, 0 warnings, 3 info\n" +
		"  info     widgets.yaml:24 field-added ^.spec.size: v1: <none> → string: a new optional field; values clients sent for it before were pruned, now they are kept\n" +
		"  info     widgets.yaml:19 description-changed ^.spec/description: v1: <none> → What the widget should be.: documentation only (kubectl explain)\n" +
		"  info     widgets.yaml:21 maximum-changed ^.spec.replicas/maximum: v1: 10 → 20: the limit is looser: everything valid before stays valid\n" +
		"total: 1 breaking, 0 warnings, 4 info in 3 CRDs (1 added, 1 removed, 1 changed, 0 unchanged)\n"
	if r.stdout != want || r.code != ExitViolations {
		t.Errorf("exit %d, stdout\n got: %s\nwant: %s", r.code, r.stdout, want)
	}
	r = crdguard(t, "", "diff", "-q", diffFile("old.yaml"), diffFile("old.yaml"))
	if want := "--- OLD testdata/diff/old.yaml\n+++ NEW testdata/diff/old.yaml\ntotal: 0 breaking, 0 warnings, 0 info in 1 CRD (0 added, 0 removed, 0 changed, 1 unchanged)\n"; r.stdout != want {
		t.Errorf("quiet, no change:\n got: %s\nwant: %s", r.stdout, want)
	}
	r = crdguard(t, "", "diff", diffFile("old.yaml"), diffFile("old.yaml"))
	if want := "widgets.example.com unchanged (old.yaml:2): 0 breaking, 0 warnings, 0 info\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("an unchanged CRD:\n%s\nwant %q", r.stdout, want)
	}
}

// TestDiffMinSeverity: --min-severity warning hides the info lines, which
// outnumber the rest on real operators, and keeps every count.
func TestDiffMinSeverity(t *testing.T) {
	want := "--- OLD testdata/diff/old-dir\n" +
		"+++ NEW testdata/diff/new-dir\n" +
		"bolts.example.com added (bolts.yaml:2): 0 breaking, 0 warnings, 1 info\n" +
		"gears.example.com removed (OLD gears.yaml:2): 1 breaking, 0 warnings, 0 info\n" +
		"  breaking OLD gears.yaml:5 crd-removed metadata.name: gears.example.com → <none>: applying the new set does not delete the CRD, but whatever prunes it deletes every stored object of its kind\n" +
		"widgets.example.com changed (widgets.yaml:1): 0 breaking, 0 warnings, 3 info\n" +
		"total: 1 breaking, 0 warnings, 4 info in 3 CRDs (1 added, 1 removed, 1 changed, 0 unchanged)\n"
	r := crdguard(t, "", "diff", "--min-severity", "warning", diffFile("old-dir"), diffFile("new-dir"))
	if r.stdout != want || r.code != ExitViolations {
		t.Errorf("exit %d, stdout\n got: %s\nwant: %s", r.code, r.stdout, want)
	}
	r = crdguard(t, "", "diff", "-q", "--min-severity", "Warning", diffFile("old-dir"), diffFile("new-dir"))
	wantQuiet := "--- OLD testdata/diff/old-dir\n" +
		"+++ NEW testdata/diff/new-dir\n" +
		"gears.example.com removed (OLD gears.yaml:2): 1 breaking, 0 warnings, 0 info\n" +
		"  breaking OLD gears.yaml:5 crd-removed metadata.name: gears.example.com → <none>: applying the new set does not delete the CRD, but whatever prunes it deletes every stored object of its kind\n" +
		"total: 1 breaking, 0 warnings, 4 info in 3 CRDs (1 added, 1 removed, 1 changed, 0 unchanged)\n"
	if r.stdout != wantQuiet {
		t.Errorf("quiet: stdout\n got: %s\nwant: %s", r.stdout, wantQuiet)
	}
	// error is the breaking changes alone, as warning is here: the
	// severities are lint's.
	r = crdguard(t, "", "diff", "--min-severity", "error", diffFile("old-dir"), diffFile("new-dir"))
	if r.stdout != want || r.code != ExitViolations || strings.Contains(r.stder, "deprecated") {
		t.Errorf("error: exit %d, stderr %q, stdout\n got: %s\nwant: %s", r.code, r.stder, r.stdout, want)
	}
	r = crdguard(t, "", "diff", "--min-severity", "blocking", diffFile("old-dir"), diffFile("new-dir"))
	if want := `invalid argument "blocking" for "--min-severity" flag: unknown value "blocking": valid values are error, warning, info`; r.code != ExitUsage || !strings.Contains(r.stder, want) {
		t.Errorf("exit %d, stderr %q, want %q", r.code, r.stder, want)
	}
}

// TestDiffDeprecatedWords: the words of the earlier vocabulary still work
// for one release, each with a warning on stderr that names the flag or
// the file and field, the old word and the new.
func TestDiffDeprecatedWords(t *testing.T) {
	r := crdguard(t, "", "diff", "--min-severity", "Breaking", diffFile("old-dir"), diffFile("new-dir"))
	if want := "crdguard: warning: --min-severity breaking is deprecated and will be refused in the next release: use --min-severity error\n"; !strings.HasPrefix(r.stder, want) || r.code != ExitViolations {
		t.Errorf("exit %d, stderr %q, want it to start with %q", r.code, r.stder, want)
	}
	if errorRun := crdguard(t, "", "diff", "--min-severity", "error", diffFile("old-dir"), diffFile("new-dir")); r.stdout != errorRun.stdout {
		t.Errorf("breaking lists other findings than error:\n%s\n%s", r.stdout, errorRun.stdout)
	}

	config := filepath.Join(t.TempDir(), "diff.yaml")
	writeFile(t, config, "checks:\n  crd-removed: None\nenumValueAdded: Error\n")
	r = crdguard(t, "", "diff", "--config", config, diffFile("old-dir"), diffFile("new-dir"))
	want := "crdguard: warning: --config " + config + `: checks[crd-removed]: "None" is deprecated and will be refused in the next release: use "Audit"` + "\n" +
		"crdguard: warning: --config " + config + `: enumValueAdded: "Error" is deprecated and will be refused in the next release: use "Deny"` + "\n"
	// None reads as Audit: the removed CRD no longer fails the run.
	if !strings.HasPrefix(r.stder, want) || r.code != ExitOK {
		t.Errorf("exit %d, stderr %q, want it to start with %q", r.code, r.stder, want)
	}
}

// TestDiffTextReplay: the replayed objects in diff's wording: what the next
// write of each does, and the objects not replayed.
func TestDiffTextReplay(t *testing.T) {
	r := crdguard(t, "", "diff", "--config", diffFile("config-waive.yaml"), "--objects", diffFile("objects.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	_, got, _ := strings.Cut(r.stdout, "stored objects replayed against NEW:\n")
	want := "Widget shop/small (objects.yaml:1): 0 breaking\n" +
		"Widget shop/big (objects.yaml:6): 3 breaking\n" +
		"  breaking spec.legacy: pruned: the new schema does not declare this field, so the object's next write drops it\n" +
		"  breaking spec.color: ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: Invalid value: \"red\": failed rule: self != 'red'\n" +
		"  breaking spec.replicas: ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: Invalid value: 8: spec.replicas in body should be less than or equal to 5\n" +
		"Gadget other (objects.yaml:11): not replayed: no new CustomResourceDefinition defines example.com/v1, Kind=Gadget\n" +
		"total: 3 breaking, 0 warnings, 3 info in 1 CRD (0 added, 0 removed, 1 changed, 0 unchanged) and 3 stored objects replayed (1 broken, 1 skipped, 0 unreadable)\n"
	if got != want || r.code != ExitViolations {
		t.Errorf("exit %d, replay\n got: %s\nwant: %s", r.code, got, want)
	}
	r = crdguard(t, "", "diff", "-q", "--objects", diffFile("objects.yaml"), diffFile("old.yaml"), diffFile("new-safe.yaml"))
	if _, got, _ := strings.Cut(r.stdout, "stored objects replayed against NEW:\n"); !strings.HasPrefix(got, "total: ") {
		t.Errorf("quiet: objects without findings are only counted:\n%s", r.stdout)
	}
}

// TestDiffTextWordDiff: a long description shows the words that changed,
// in the text and in the JSON message alike.
func TestDiffTextWordDiff(t *testing.T) {
	oldCRD := readFile(t, diffFile("old.yaml"))
	const opening = "Replicas is how many widgets run side by side in one cluster. "
	withDescription := func(text string) string {
		return replaceOnce(t, oldCRD, "replicas: {type: integer, maximum: 10}", `replicas: {type: integer, maximum: 10, description: "`+opening+text+`"}`)
	}
	dir := filetree.Write(t, map[string]string{"old.yaml": withDescription("Defaults to one."), "new.yaml": withDescription("Defaults to three.")})
	want := "v1: … one cluster. Defaults to [-one.-]{+three.+}: documentation only (kubectl explain)"
	r := crdguard(t, "", "diff", filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml"))
	if !strings.Contains(r.stdout, "  info     new.yaml:") || !strings.Contains(r.stdout, "description-changed ^.spec.replicas/description: "+want+"\n") {
		t.Errorf("text lacks %q\n%s", want, r.stdout)
	}
	r = crdguard(t, "", "diff", "-o", "json", filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml"))
	if v := decodeReport(t, r).Results[0].Violations; len(v) != 1 || v[0].Message != want {
		t.Errorf("json findings %+v, want the message %q", v, want)
	}
}

func TestDiffJSONWithWaivers(t *testing.T) {
	r := crdguard(t, "", "diff", "-o", "json", "--config", diffFile("config-waive.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	rep := decodeReport(t, r)
	res := rep.Results[0]
	if res.Source != diffFile("new-breaking.yaml") || res.Document != 1 || res.Line != 6 || res.Kind != "CustomResourceDefinition" || res.Name != "widgets.example.com" || !res.Allowed {
		t.Errorf("result header = %+v", res)
	}
	v := res.Violations[0]
	if v.Field != legacyPath || v.Type != "breaking" || v.RuleID() != "diff/field-removed" || v.Enforcement != v1alpha1.Audit ||
		!strings.HasSuffix(v.Message, "(waived: never read by the controller)") {
		t.Errorf("waived finding = %+v", v)
	}
}

func TestDiffExpiredWaiverFailsEvenForWarnings(t *testing.T) {
	r := crdguard(t, "", "diff", "-o", "json", "--config", diffFile("config-expired.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	rep := decodeReport(t, r)
	var expired []string
	for _, v := range rep.Results[0].Violations {
		if strings.Contains(v.Message, "waiver expired") {
			expired = append(expired, v.Rule+" "+string(v.Enforcement))
		}
	}
	if len(expired) != 1 || expired[0] != "maximum-changed Deny" || r.code != ExitViolations {
		t.Errorf("exit %d, expired findings %q", r.code, expired)
	}
}

func TestDiffDirectories(t *testing.T) {
	r := crdguard(t, "", "diff", "-o", "json", diffFile("old-dir"), diffFile("new-dir"))
	if r.code != ExitViolations {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	var got []string
	for _, res := range decodeReport(t, r).Results {
		line := res.Name + " " + res.Operation + " " + res.Source
		for _, v := range res.Violations {
			line += " " + v.RuleID() + ":" + string(v.Enforcement)
		}
		got = append(got, line)
	}
	want := []string{
		"bolts.example.com CREATE testdata/diff/new-dir/bolts.yaml diff/crd-added:Audit",
		"gears.example.com DELETE testdata/diff/old-dir/gears.yaml diff/crd-removed:Deny",
		"widgets.example.com UPDATE testdata/diff/new-dir/widgets.yaml diff/field-added:Audit diff/description-changed:Audit diff/maximum-changed:Audit",
	}
	assertLines(t, "results", got, want)
}

func TestDiffReplay(t *testing.T) {
	r := crdguard(t, "", "diff", "-o", "json", "--objects", diffFile("objects.yaml"), diffFile("old.yaml"), diffFile("new-safe.yaml"))
	if r.code != ExitOK {
		t.Fatalf("a safe change with valid objects: exit %d\n%s%s", r.code, r.stdout, r.stder)
	}
	r = crdguard(t, "", "diff", "-o", "json", "--config", diffFile("config-waive.yaml"), "--objects", diffFile("objects.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	rep := decodeReport(t, r)
	var got []string
	for _, res := range rep.Results[1:] {
		line := res.Kind + " " + res.Name + " " + res.Operation
		if res.Skipped {
			line += " skipped"
		}
		for _, v := range res.Violations {
			line += " | " + v.Field + " " + v.RuleID() + " " + string(v.Enforcement)
		}
		got = append(got, line)
	}
	want := []string{
		"Widget small UPDATE",
		"Widget big UPDATE | spec.legacy replay/pruned Deny | spec.color replay/ratchet-tolerated Deny | spec.replicas replay/ratchet-tolerated Deny",
		"Gadget other UPDATE skipped",
	}
	assertLines(t, "replay", got, want)
	// The CRD changes are waived; the stored object they break is not.
	if r.code != ExitViolations {
		t.Errorf("exit %d, want %d", r.code, ExitViolations)
	}
}

// TestDiffReplayClasses: each of the three classes of replay finding fails
// the run on its own, with its path, rule and message.
func TestDiffReplayClasses(t *testing.T) {
	for _, tc := range []struct {
		name, object string
		want         report.Finding
	}{{
		name:   "rejected on update",
		object: "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w, namespace: ns}\n",
		want: report.Finding{Field: "apiVersion", Type: "FieldValueNotSupported", Policy: "replay", Rule: "rejected-on-update", Enforcement: v1alpha1.Deny,
			Message: `rejected on update: the object's next write fails: Unsupported value: "example.com/v2": supported values: "example.com/v1"`},
	}, {
		name:   "ratchet-tolerated",
		object: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\nspec: {replicas: 8}\n",
		want: report.Finding{Field: "spec.replicas", Type: "FieldValueInvalid", Policy: "replay", Rule: "ratchet-tolerated", Enforcement: v1alpha1.Deny,
			Message: "ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: Invalid value: 8: spec.replicas in body should be less than or equal to 5"},
	}, {
		name:   "pruned",
		object: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\nspec: {legacy: \"yes\"}\n",
		want: report.Finding{Field: "spec.legacy", Type: "FieldValueForbidden", Policy: "replay", Rule: "pruned", Enforcement: v1alpha1.Deny,
			Message: "pruned: the new schema does not declare this field, so the object's next write drops it"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			obj := filepath.Join(t.TempDir(), "obj.yaml")
			writeFile(t, obj, tc.object)
			r := crdguard(t, "", "diff", "-o", "json", "--config", diffFile("config-waive.yaml"), "--objects", obj, diffFile("old.yaml"), diffFile("new-breaking.yaml"))
			rep := decodeReport(t, r)
			if r.code != ExitViolations || len(rep.Results) != 2 {
				t.Fatalf("exit %d, want %d, results %+v", r.code, ExitViolations, rep.Results)
			}
			if got := rep.Results[1].Violations; len(got) != 1 || got[0] != tc.want {
				t.Errorf("findings %+v\nwant [%+v]", got, tc.want)
			}
		})
	}
}

// TestDiffSARIFPointsAtTheChangedNode checks that each result points at the
// line of its node in the new file (new-breaking.yaml, whose CRD is its
// second document, starting at line 6), not at the CRD's first line: a
// removed field at the nearest line still there, its parent's properties.
func TestDiffSARIFPointsAtTheChangedNode(t *testing.T) {
	r := crdguard(t, "", "diff", "-o", "sarif", diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	res := decodeSARIF(t, r)
	want := []struct {
		rule string
		line int
	}{
		{"diff/field-removed", 24},            // properties: of spec, where legacy was
		{"diff/validation-rules-changed", 29}, // - rule: self != 'red'
		{"diff/maximum-changed", 25},          // replicas: {type: integer, maximum: 5}
	}
	if len(res) != len(want) {
		t.Fatalf("results = %+v", res)
	}
	for i, w := range want {
		loc := res[i].Locations[0].PhysicalLocation
		if res[i].RuleID != w.rule || res[i].Level != "error" || loc.ArtifactLocation.URI != "testdata/diff/new-breaking.yaml" || loc.Region.StartLine != w.line {
			t.Errorf("result %d = %+v, want %s at line %d", i, res[i], w.rule, w.line)
		}
	}
}

func TestDiffJUnitAndMarkdown(t *testing.T) {
	r := crdguard(t, "", "diff", "-o", "junit", diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	var suites struct {
		Suites []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(r.stdout), &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Name != "crdguard diff" {
		t.Errorf("junit: %v %+v\n%s", err, suites, r.stdout)
	}
}

func TestDiffMarkdown(t *testing.T) {
	r := crdguard(t, "", "diff", "-o", "markdown", diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	want := "### ❌ crdguard diff: 3 breaking, 0 warnings, 0 info\n" +
		"\n" +
		"`testdata/diff/old.yaml` → `testdata/diff/new-breaking.yaml`: 1 CRD (0 added, 0 removed, 1 changed, 0 unchanged)\n" +
		"\n" +
		"| CRD | change | breaking | warnings | info |\n" +
		"|---|---|--:|--:|--:|\n" +
		"| `widgets.example.com` | changed | 3 | 0 | 0 |\n" +
		"\n" +
		"<details><summary><code>widgets.example.com</code> changed: 3 breaking, 0 warnings, 0 info</summary>\n" +
		"\n" +
		"| severity | check | field | change | at |\n" +
		"|---|---|---|---|---|\n" +
		"| breaking | `field-removed` | `^.spec.legacy` | v1: string → &lt;none&gt;: the API server prunes it from stored objects on their next write, and clients setting it lose it silently | `new-breaking.yaml:24` |\n" +
		"| breaking | `validation-rules-changed` | `^.spec.color/x-kubernetes-validations[0]` | v1: &lt;none&gt; → self != 'red': a new rule on an existing field: stored objects it rejects fail their next update (unless it ratchets on unchanged values); crdguard diff --objects replays the stored objects to decide | `new-breaking.yaml:29` |\n" +
		"| breaking | `maximum-changed` | `^.spec.replicas/maximum` | v1: 10 → 5: stored values beyond the new limit are rejected on their next update unless left unchanged (ratcheting) | `new-breaking.yaml:25` |\n" +
		"\n" +
		"</details>\n"
	if r.stdout != want {
		t.Errorf("markdown\n got: %s\nwant: %s", r.stdout, want)
	}
	r = crdguard(t, "", "diff", "-o", "markdown", "--objects", diffFile("objects.yaml"), diffFile("old.yaml"), diffFile("new-breaking.yaml"))
	_, got, _ := strings.Cut(r.stdout, "</details>\n\n")
	want = "#### Stored objects replayed against NEW: 3 stored objects replayed (1 broken, 1 skipped, 0 unreadable)\n" +
		"\n" +
		"| object | at | result |\n" +
		"|---|---|---|\n" +
		"| Widget shop/big | `objects.yaml:6` | 3 breaking |\n" +
		"\n" +
		"<details><summary>Widget shop/big: 3 breaking</summary>\n" +
		"\n" +
		"| severity | field | next write |\n" +
		"|---|---|---|\n" +
		"| breaking | `spec.legacy` | pruned: the new schema does not declare this field, so the object's next write drops it |\n"
	if !strings.HasPrefix(got, want) || !strings.HasPrefix(r.stdout, "### ❌ crdguard diff: 6 breaking, 0 warnings, 0 info\n") {
		t.Errorf("markdown replay\n got: %s\nwant it to start with: %s", r.stdout, want)
	}
}

// TestDiffMarkdownIsCapped: past 50 (pkg/report's maxDiffMarkdownFindings)
// a CRD's findings are counted, breaking ones listed first.
func TestDiffMarkdownIsCapped(t *testing.T) {
	const maxMarkdownFindings = 50
	oldCRD := readFile(t, diffFile("old.yaml"))
	var props strings.Builder
	for i := range maxMarkdownFindings + 10 {
		fmt.Fprintf(&props, "              extra%02d: {type: string}\n", i)
	}
	// 60 fields added (info) and the legacy field removed (breaking).
	newCRD := replaceOnce(t, oldCRD, "              legacy: {type: string}\n", props.String())
	dir := filetree.Write(t, map[string]string{"old.yaml": oldCRD, "new.yaml": newCRD})
	r := crdguard(t, "", "diff", "-o", "markdown", filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml"))
	rows := strings.Count(r.stdout, "\n| info | `field-added` |") + strings.Count(r.stdout, "\n| breaking | ")
	firstRow := "|---|---|---|---|---|\n| breaking | `field-removed` |"
	more := "\n… and 11 more (0 breaking, 0 warnings, 11 info): `crdguard diff -o json` lists every one.\n"
	if rows != maxMarkdownFindings || !strings.Contains(r.stdout, firstRow) || !strings.Contains(r.stdout, more) {
		t.Errorf("%d rows, want %d, the breaking one first and %q:\n%s", rows, maxMarkdownFindings, more, r.stdout)
	}
}

// TestDiffGit compares the committed CRD with a working-tree change, and a
// directory at two commits, in a temporary repository.
func TestDiffGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for the git: sources")
	}
	abs := func(name string) string {
		p, err := filepath.Abs(diffFile(name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	oldCRD, breaking, safe := readFile(t, abs("old.yaml")), abs("new-breaking.yaml"), readFile(t, abs("new-safe.yaml"))
	repo := t.TempDir()
	t.Chdir(repo)
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q", "-b", "main")
	writeFile(t, "crds/widgets.yaml", oldCRD)
	writeFile(t, "crds/README.md", "not a manifest")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "v1")
	gitRun("tag", "v1")
	writeFile(t, "crds/widgets.yaml", safe)
	gitRun("commit", "-q", "-am", "v2")

	r := crdguard(t, "", "diff", "git:v1:crds/widgets.yaml", breaking)
	if r.code != ExitViolations || r.stder != "crdguard: note: NEW: skipped "+breaking+":2 (document 1): v1 ConfigMap, not a CustomResourceDefinition\n" {
		t.Errorf("file at tag vs breaking: exit %d, stderr %q", r.code, r.stder)
	}
	r = crdguard(t, "", "diff", "-o", "json", "git:v1:crds", "git:main:./crds")
	if r.code != ExitOK {
		t.Fatalf("tree at tag vs main: exit %d, stderr %q", r.code, r.stder)
	}
	res := decodeReport(t, r).Results
	if len(res) != 1 || res[0].Source != "git:main:./crds/widgets.yaml" || res[0].Line != 1 || len(res[0].Violations) != 3 {
		t.Fatalf("results = %+v", res)
	}
	// A git source is read once, through git: each finding still has the
	// line of its node (new-safe.yaml's description, replicas and size).
	for _, v := range res[0].Violations {
		if want := map[string]int{"description-changed": 19, "maximum-changed": 21, "field-added": 24}[v.Rule]; v.Line != want {
			t.Errorf("%s at line %d, want %d", v.Rule, v.Line, want)
		}
	}
	// From a subdirectory, "./" paths are relative to it.
	t.Chdir(filepath.Join(repo, "crds"))
	r = crdguard(t, "", "diff", "-o", "json", "git:v1:./", "git:main:./")
	if r.code != ExitOK {
		t.Fatalf("subdirectory: exit %d, stderr %q", r.code, r.stder)
	}
	if res := decodeReport(t, r).Results; len(res) != 1 || res[0].Source != "git:main:./widgets.yaml" {
		t.Errorf("subdirectory: exit %d, stderr %q, results %+v", r.code, r.stder, res)
	}
	// Text shows each CRD's file relative to the tree it was read from.
	r = crdguard(t, "", "diff", "git:v1:./", "git:main:./")
	if want := "--- OLD git:v1:./\n+++ NEW git:main:./\nwidgets.example.com changed (widgets.yaml:1): "; r.code != ExitOK || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("subdirectory, text: exit %d, stderr %q, stdout\n%s\nwant it to start with\n%s", r.code, r.stder, r.stdout, want)
	}
	r = crdguard(t, "", "diff", "git:nope:crds", "widgets.yaml")
	if r.code != ExitUsage || !strings.Contains(r.stder, "crdguard: OLD: git cat-file -t nope:crds: ") {
		t.Errorf("unknown ref: exit %d, stderr %q", r.code, r.stder)
	}
}

func TestDiffWaiverExpiryIsJudgedToday(t *testing.T) {
	// The expired fixture expired in 2020; pin "now" to before that to
	// prove the date, not the fixture, decides.
	o := &diffOptions{reportOptions: reportOptions{output: report.JSON}, config: diffFile("config-expired.yaml"), now: func() time.Time { return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) }}
	var out strings.Builder
	err := o.run(t.Context(), diffFile("old.yaml"), diffFile("new-breaking.yaml"), Streams{In: strings.NewReader(""), Out: &out, Err: &out})
	if err != nil {
		t.Errorf("before expiry every change is waived: %v\n%s", err, out.String())
	}
}
