package report

import "strings"

// docsURI is where the documentation the SARIF rules link to lives.
const docsURI = toolURI + "/blob/main/docs/"

// sarifRuleHelp is what code scanning shows about a rule beside its
// results: a one-line description, a longer one and help text. crdguard's
// own rules and the schema's are described here; a GuardPolicy rule is
// described by its policy and rule names, with a link to the rule kinds.
type sarifRuleHelp struct {
	short, full, help, uri string
}

var builtinRuleHelp = map[string]sarifRuleHelp{
	inputErrorRule: {
		short: "Input that could not be checked",
		full:  "A document could not be read or decoded (unparseable YAML or JSON, no apiVersion or kind), so it was not checked; crdguard never counts it as allowed.",
		help:  "Fix the document so that it parses as a Kubernetes object with apiVersion and kind. The run exits 2 while any input cannot be checked.",
		uri:   docsURI + "cli.md#exit-codes",
	},
	warningRule: {
		short: "API server warning",
		full:  "A warning kube-apiserver would send back with the request (deprecated versions, finalizer names and the like); the object is accepted.",
		help:  "Read the warning: it names what the API server would warn about and usually what to use instead.",
		uri:   docsURI + "cli.md#crdguard-validate-flags-path",
	},
	"schema/validation": {
		short: "Invalid against its CRD schema",
		full:  "kube-apiserver would reject the object: its CRD's OpenAPI v3 schema, CEL validation rules, list types or metadata rules do not allow the value at the field.",
		help:  "The message is the API server's own: it says what was found at the field and what the schema allows. Fix the value, or the CRD if the schema is wrong.",
		uri:   docsURI + "cli.md#crdguard-validate-flags-path",
	},
	"schema/unknown-field": {
		short: "Field the CRD schema does not declare",
		full:  "The field is not in the CRD's schema: kube-apiserver silently drops it (pruning), and rejects the object only with fieldValidation=Strict. A typo here means the setting never reaches the controller.",
		help:  "Check the field's spelling and indentation against the CRD, or declare the field in the schema.",
		uri:   docsURI + "cli.md#crdguard-validate-flags-path",
	},
	"schema/warning": {
		short: "API server warning, denied by --warnings-as-errors",
		full:  "A warning kube-apiserver would send back with the request (a deprecated version, a rule ratcheting lets through, a finalizer name); the server accepts the object, and crdguard validate --warnings-as-errors denies it.",
		help:  "Read the warning: it names what the API server would warn about and usually what to use instead. Without --warnings-as-errors it is reported as a warning.",
		uri:   docsURI + "cli.md#warnings",
	},
	"schema/missing-schema": {
		short: "No CRD defines the object's kind",
		full:  "No CustomResourceDefinition given with --crds defines the object's apiVersion and kind, and --missing-schemas error makes that a finding.",
		help:  "Pass the CRD that defines the kind with --crds, or use --missing-schemas skip to skip such objects.",
		uri:   docsURI + "cli.md#crdguard-validate-flags-path",
	},
}

// sarifRuleOf describes the rule a finding (or a result that is not a
// finding) is filed under.
func sarifRuleOf(id string) sarifRule {
	h, ok := builtinRuleHelp[id]
	if !ok {
		h = checkRuleHelp(id)
	}
	return sarifRule{
		ID:               id,
		ShortDescription: &sarifMessage{Text: h.short},
		FullDescription:  &sarifMessage{Text: h.full},
		Help:             &sarifMultiformat{Text: h.help, Markdown: h.help + " See [the documentation](" + h.uri + ")."},
		HelpURI:          h.uri,
	}
}

// checkRuleHelp describes a rule crdguard has no text for: a check of
// crdguard diff or lint, or a rule of a GuardPolicy, by its names.
func checkRuleHelp(id string) sarifRuleHelp {
	policy, rule, _ := strings.Cut(id, "/")
	switch policy {
	case "schema":
		return builtinRuleHelp["schema/validation"]
	case "diff":
		return sarifRuleHelp{
			short: "CRD change: " + rule,
			full:  "crdguard diff check " + rule + " found this change between the old and the new CRD.",
			help:  "The message says what changed and what it does to stored objects and clients; the level is the check's enforcement.",
			uri:   docsURI + "cli.md#crdguard-diff-flags-old-new",
		}
	case "gotypes":
		return sarifRuleHelp{
			short: "Go API type: " + rule,
			full:  "crdguard lint check " + rule + " found this disagreement between the Go API types and their CRD schema.",
			help:  "The message says what the Go type and the schema disagree on and how to fix it.",
			uri:   docsURI + "lint.md#checks",
		}
	}
	return sarifRuleHelp{
		short: "GuardPolicy " + policy + ", rule " + rule,
		full:  "A finding of rule " + rule + " of GuardPolicy " + policy + ".",
		help:  "The message says what is wrong at the field, what was found and what is allowed; the rule's enforcement (Deny, Warn, Audit) sets the level.",
		uri:   docsURI + "guardpolicy.md#rules",
	}
}
