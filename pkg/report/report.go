package report

import "github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"

// Finding is one problem in one object: where it is, what kind of problem it
// is, and who decided it is one.
type Finding struct {
	// Field is the field.Path string exactly as the API server prints it
	// ("spec.containers[0].image", "metadata.labels[app]", "<nil>").
	Field string `json:"field"`
	// Type is the field.ErrorType string ("FieldValueInvalid", ...).
	Type string `json:"type"`
	// Message says what is wrong, what was found and what is allowed.
	Message string `json:"message"`
	// Policy is the GuardPolicy name, or "schema" for schema findings.
	Policy string `json:"policy"`
	// Rule is the rule within the policy ("unknown-field", "resources", ...).
	Rule string `json:"rule"`
	// Enforcement is what the finding does to the request: Deny rejects
	// it, Warn lets it through with a warning, Audit lets it through and
	// records it.
	Enforcement v1alpha1.Enforcement `json:"enforcement"`
	// Line is the 1-based line in the result's Source of the node the
	// finding is about, when the producer knows it (crdguard validate and
	// diff); 0 means the finding is located by the result's Line, the
	// document's start. Omitted when 0 so that the JSON of producers without
	// it is unchanged.
	Line int `json:"line,omitempty"`
	// Column is the 1-based column, in characters, of that node on Line;
	// 0 (omitted) when unknown.
	Column int `json:"column,omitempty"`
}

// Result is the verdict on one document of one input.
type Result struct {
	// Source is the file the document came from ("-" for stdin).
	Source string `json:"source"`
	// Document is the 0-based index of the document within Source.
	Document int `json:"document"`
	// Item is the 0-based index of the object in the items of the List
	// that Document is; nil when Document is no List.
	Item *int `json:"item,omitempty"`
	// NotStream marks a Source that is not a stream of YAML documents, such
	// as the Go file crdguard lint reports on: Document is then always 0
	// and means nothing, and the text and JUnit outputs leave it out.
	NotStream bool `json:"notStream,omitempty"`
	// Line is the 1-based line at which the document starts in Source (the
	// line a NotStream result is about).
	Line       int    `json:"line"`
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
	// Operation is CREATE, UPDATE or DELETE.
	Operation string `json:"operation,omitempty"`
	// Allowed is false when any finding is at Deny level or Error is set.
	Allowed bool `json:"allowed"`
	// Skipped is set when the object was not evaluated, with the reason in
	// SkipReason (for example: no schema for its kind).
	Skipped    bool      `json:"skipped,omitempty"`
	SkipReason string    `json:"skipReason,omitempty"`
	Violations []Finding `json:"violations"`
	Warnings   []string  `json:"warnings"`
	// Patches are the changes the mutating webhook would make (shown with
	// validate --show-patches).
	Patches []Patch `json:"patches,omitempty"`
	// Stored is the object as the API server would store it (shown with
	// validate --show-stored): only for an object it would accept.
	Stored map[string]any `json:"stored,omitempty"`
	// Error is set when the document could not be evaluated at all
	// (unparseable, no apiVersion/kind); such a document is never allowed.
	Error string `json:"error,omitempty"`
}

// Patch is one JSON patch operation (RFC 6902).
type Patch struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Summary counts the results by outcome. Objects = Allowed + Denied + Skipped + Errors.
type Summary struct {
	// Objects counts every result, Unreadable ones too.
	Objects int `json:"objects"`
	Allowed int `json:"allowed"`
	Denied  int `json:"denied"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
	// Unreadable counts the error results that are no object: a file or
	// a document that could not be read (they have no kind).
	Unreadable int `json:"unreadable,omitempty"`
}

// Report is everything one run found. Build it with New so that Summary,
// Version and every Result's Allowed agree with the results.
type Report struct {
	// Version is the JSON schema identifier (JSONVersion). It lives on Report
	// rather than only in the JSON writer so that a consumer decoding into
	// Report can check which schema it read.
	Version string   `json:"version"`
	Results []Result `json:"results"`
	Summary Summary  `json:"summary"`
}

// Decide sets Allowed from the findings, so that every producer (CLI,
// webhook, diff) agrees on what "allowed" means: a document that could not be
// evaluated is never allowed, and only Deny findings reject. Warn and Audit
// findings and skipping do not.
func (r *Result) Decide() {
	r.Allowed = r.Error == "" && len(r.denials()) == 0
}

func (r *Result) denials() []Finding {
	var deny []Finding
	for _, f := range r.Violations {
		if f.Enforcement == v1alpha1.Deny {
			deny = append(deny, f)
		}
	}
	return deny
}

// outcome is the single bucket a result is counted in. Error wins over
// Skipped because a document that failed to parse cannot meaningfully be
// said to have been skipped, and Skipped wins over Allowed because a skipped
// object was never checked.
type outcome int

const (
	outcomeAllowed outcome = iota
	outcomeDenied
	outcomeSkipped
	outcomeError
)

func (r *Result) outcome() outcome {
	switch {
	case r.Error != "":
		return outcomeError
	case r.Skipped:
		return outcomeSkipped
	case r.Allowed:
		return outcomeAllowed
	default:
		return outcomeDenied
	}
}

// New builds a Report from results in the order given. It copies the results,
// decides each one (see Result.Decide) and replaces nil Violations and
// Warnings with empty slices so that the report encodes to JSON the same way
// it decodes back.
func New(results []Result) Report {
	rep := Report{
		Version: JSONVersion,
		Results: make([]Result, len(results)),
	}
	copy(rep.Results, results)
	for i := range rep.Results {
		r := &rep.Results[i]
		normalize(r)
		r.Decide()
		rep.Summary.add(r)
	}
	return rep
}

// RuleID names the check that raised the finding as "<policy>/<rule>"
// ("schema/unknown-field", "require-limits/resources"). A finding without a
// rule falls back to its field error type, so that schema findings from
// producers that do not name rules still group by kind of problem rather
// than all under one "schema/" id.
func (f Finding) RuleID() string {
	rule := f.Rule
	if rule == "" {
		rule = f.Type
	}
	return f.Policy + "/" + rule
}
