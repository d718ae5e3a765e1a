package testsuite

import "github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"

// APIVersion and Kind of a suite file. The group is not crdguard.dev, the
// GuardPolicy API's, so that no one mistakes a suite for an object a
// cluster serves.
const (
	APIVersion = "cli.crdguard.dev/v1alpha1"
	Kind       = "TestSuite"
)

// TestSuite is one suite file.
type TestSuite struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	// CRDs are files or directories of CustomResourceDefinitions, relative
	// to the suite file. At least one of CRDs and Policies is given.
	CRDs []string `json:"crds,omitempty"`
	// Policies are files or directories of GuardPolicies, relative to the
	// suite file.
	Policies []string `json:"policies,omitempty"`
	// AllowMissingSchemas lets a case's object be of a kind no loaded CRD
	// defines, checked by the policies alone (a built-in kind such as a
	// Deployment). Default false: such a case is an error naming the kind,
	// since a run without the CRDs (no --crds) would otherwise pass most
	// cases for the wrong reason.
	AllowMissingSchemas bool `json:"allowMissingSchemas,omitempty"`
	// Cases are the requests to evaluate, at least one.
	Cases []Case `json:"cases"`
}

// Metadata names the suite.
type Metadata struct {
	Name string `json:"name"`
}

// Case is one admission request and the verdict it must get.
type Case struct {
	// Name is unique within the suite; reports name the case by it.
	Name string `json:"name"`
	// Operation is CREATE (object only), UPDATE (object and oldObject) or
	// DELETE (oldObject only: the stored object being deleted).
	Operation v1alpha1.Operation `json:"operation"`
	// Object is the object after the operation.
	Object *ObjectRef `json:"object,omitempty"`
	// OldObject is the stored object, on UPDATE and DELETE.
	OldObject *ObjectRef `json:"oldObject,omitempty"`
	// User and Groups are the requesting user's, for approvals and CEL
	// rules. Default: no user, no groups.
	User   string   `json:"user,omitempty"`
	Groups []string `json:"groups,omitempty"`
	// NamespaceLabels are the labels of the object's namespace, for
	// policies with a namespaceSelector. Default: unknown, which such a
	// policy's match makes an error of the case.
	NamespaceLabels map[string]string `json:"namespaceLabels,omitempty"`
	// Expect is the verdict the case must get.
	Expect *Expectation `json:"expect"`
}

// ObjectRef is one object of a manifest file.
type ObjectRef struct {
	// File is relative to the suite file.
	File string `json:"file"`
	// Name picks the object of that metadata.name; required when the file
	// holds more than one object.
	Name string `json:"name,omitempty"`
}

// Result is a verdict, on an object or of a rule.
type Result string

const (
	// Allowed: an object admitted without warnings; a rule with no findings.
	Allowed Result = "allowed"
	// Denied: an object with a Deny finding; a rule's Deny findings.
	Denied Result = "denied"
	// Warned: an object admitted with warnings (Warn findings, approval
	// notes, the API server's own); a rule's Warn findings.
	Warned Result = "warned"
	// Audited: a rule's Audit findings (an approved denial is one). Not
	// an object's result: audit findings admit it.
	Audited Result = "audited"
)

// Expectation is what a case's request must get.
type Expectation struct {
	// Result of the object: allowed, denied or warned.
	Result Result `json:"result"`
	// Rules are the findings expected, per policy and rule. Every finding
	// of the request must be listed here, unless AllowOtherFindings.
	Rules []RuleExpectation `json:"rules,omitempty"`
	// AllowOtherFindings accepts findings of rules and levels that Rules
	// does not list. Default: such a finding fails the case.
	AllowOtherFindings bool `json:"allowOtherFindings,omitempty"`
}

// RuleExpectation is the findings of one rule at one level.
type RuleExpectation struct {
	// Policy is the GuardPolicy's name, or "schema" for the CRD schema's
	// findings (rules "validation" and "unknown-field").
	Policy string `json:"policy"`
	Rule   string `json:"rule"`
	// Result is allowed (the rule has no findings at all), denied, warned
	// or audited (its findings at Deny, Warn or Audit level).
	Result Result `json:"result"`
	// Fields are the field paths of the rule's findings at that level,
	// exactly as the API server prints them (spec.users[1], <nil> for the
	// object itself): the findings must be at these fields, and at no
	// other. Required unless Result is allowed, where it must be empty.
	Fields []string `json:"fields,omitempty"`
}
