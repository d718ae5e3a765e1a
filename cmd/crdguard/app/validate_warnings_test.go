package app

import (
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/report"
)

const (
	gadgetsCRD = "../../../pkg/schema/testdata/gadgets-crd.yaml"
	widgetsCRD = "../../../pkg/schema/testdata/widgets-crd.yaml"
	// A CEL rule the unchanged spec still breaks: ratcheting lets the
	// update through with a warning.
	ratchetedDir = "../../../test/e2e/testdata/widgets-updates/spec-cel-unchanged/"
)

const deprecatedGadget = `apiVersion: test.crdguard.dev/v1beta2
kind: Gadget
metadata: {name: g}
spec: {size: 1}
`

const (
	deprecationWarning = "test.crdguard.dev/v1beta2 Gadget is deprecated; use test.crdguard.dev/v1 Gadget"
	ratchetingWarning  = "spec: Forbidden: a huge widget allows at most 3 replicas"
)

// TestValidateServerWarnings checks that the warnings of a deprecated
// version and of a ratcheted CEL rule reach every format without changing
// the exit code.
func TestValidateServerWarnings(t *testing.T) {
	r := crdguard(t, deprecatedGadget, "validate", "--crds", gadgetsCRD, "-")
	if r.code != ExitOK {
		t.Fatalf("exit code = %d, want %d; stderr: %s", r.code, ExitOK, r.stder)
	}
	if want := "-:1 (document 1): Gadget default/g is valid (CREATE):\n  Warning: " + deprecationWarning + "\n"; !strings.HasPrefix(r.stdout, want) {
		t.Errorf("text output\n got: %q\nwant prefix: %q", r.stdout, want)
	}

	r = crdguard(t, "", "validate", "--crds", widgetsCRD, "--old", ratchetedDir+"old.yaml", "-o", "json", ratchetedDir+"new.yaml")
	if r.code != ExitOK {
		t.Fatalf("exit code = %d, want %d; stderr: %s", r.code, ExitOK, r.stder)
	}
	res := decodeReport(t, r).Results[0]
	if !res.Allowed || res.Operation != "UPDATE" || !slices.Equal(res.Warnings, []string{ratchetingWarning}) {
		t.Errorf("json: allowed=%v operation=%s warnings=%q, want an allowed UPDATE with [%q]", res.Allowed, res.Operation, res.Warnings, ratchetingWarning)
	}

	r = crdguard(t, deprecatedGadget, "validate", "--crds", gadgetsCRD, "-o", "junit", "-")
	var suites struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(r.stdout), &suites); err != nil || r.code != ExitOK || len(suites.Suites) != 1 ||
		suites.Suites[0].Failures != 0 || len(suites.Suites[0].Cases) != 1 || suites.Suites[0].Cases[0].SystemOut != "Warning: "+deprecationWarning {
		t.Errorf("junit: exit %d, %v %+v\n%s", r.code, err, suites, r.stdout)
	}

	r = crdguard(t, deprecatedGadget, "validate", "--crds", gadgetsCRD, "-o", "sarif", "-")
	if r.code != ExitOK {
		t.Fatalf("sarif: exit %d\n%s", r.code, r.stdout)
	}
	results := decodeSARIF(t, r)
	if len(results) != 1 {
		t.Fatalf("sarif results %+v, want one", results)
	}
	if got := results[0]; got.RuleID != "crdguard/warning" || got.Level != "warning" || got.Message.Text != deprecationWarning {
		t.Errorf("sarif result %+v, want crdguard/warning at level warning: %q", got, deprecationWarning)
	}
}

// TestValidateWarningsAsErrors checks that --warnings-as-errors denies an
// object with warnings, each one a finding of rule schema/warning, and
// leaves an object without warnings allowed.
func TestValidateWarningsAsErrors(t *testing.T) {
	r := crdguard(t, deprecatedGadget, "validate", "--warnings-as-errors", "--crds", gadgetsCRD, "-o", "json", "-", "../../../test/e2e/testdata/gadgets/gadget-valid-v1.yaml")
	if r.code != ExitViolations {
		t.Fatalf("exit code = %d, want %d; stderr: %s", r.code, ExitViolations, r.stder)
	}
	rep := decodeReport(t, r)
	if len(rep.Results) != 2 || rep.Summary.Denied != 1 || rep.Summary.Allowed != 1 {
		t.Fatalf("results %+v, want one denied and one allowed", rep)
	}
	denied, allowed := rep.Results[0], rep.Results[1]
	want := []report.Finding{{Field: "<nil>", Type: "Warning", Message: deprecationWarning, Policy: "schema", Rule: "warning", Enforcement: v1alpha1.Deny}}
	if denied.Allowed || !slices.Equal(denied.Violations, want) || len(denied.Warnings) != 0 {
		t.Errorf("deprecated version: allowed=%v violations=%+v warnings=%q\nwant denied with %+v and no warnings", denied.Allowed, denied.Violations, denied.Warnings, want)
	}
	if !allowed.Allowed || len(allowed.Violations) != 0 {
		t.Errorf("v1: allowed=%v violations=%+v, want allowed without findings", allowed.Allowed, allowed.Violations)
	}
}
