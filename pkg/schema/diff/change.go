package diff

import (
	"fmt"
	"strings"
)

// Impact says what a change does to existing objects and clients. It is
// the check's opinion; Config turns it into an enforcement.
type Impact string

const (
	// Breaking: stored objects or existing clients stop working (objects
	// become unreadable, are rejected on their next update, lose data).
	Breaking Impact = "breaking"
	// Warning: behaviour changes in a way that needs attention but does not
	// by itself reject or lose data.
	Warning Impact = "warning"
	// Info: compatible changes, reported so that the report is complete.
	Info Impact = "info"
)

// Change is one classified difference between the old and the new CRD.
type Change struct {
	// Check is the id of the check that found the change.
	Check string `json:"check"`
	// Impact is the check's classification.
	Impact Impact `json:"impact"`
	// CRD is the CRD's name (plural.group).
	CRD string `json:"crd"`
	// Version is the CRD version the change is in; "" for CRD-level changes.
	Version string `json:"version,omitempty"`
	// Path is the JSON path of the changed node in the new CRD
	// ("spec.versions[0].schema.openAPIV3Schema.properties.spec"), or in
	// the old CRD when the node no longer exists.
	Path string `json:"path"`
	// Old and New are the values before and after, rendered for humans
	// (JSON for schema values, the rule text for CEL rules); "" when absent.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Words, set for long text values on both sides (descriptions), shows
	// the words that changed with a few around them ("…the [-old-]{+new+}
	// words…"): two clipped values would read alike.
	Words string `json:"words,omitempty"`
	// Message is the one-line consequence of the change.
	Message string `json:"message"`
}

// Values renders "old → new", with <none> for an absent side, or the
// changed words when the change has them.
func (c Change) Values() string {
	if c.Words != "" {
		return c.Words
	}
	return orNone(c.Old) + " → " + orNone(c.New)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func (c Change) String() string {
	version := ""
	if c.Version != "" {
		version = " " + c.Version
	}
	return fmt.Sprintf("%s [%s/%s]%s %s: %s: %s", c.CRD, c.Impact, c.Check, version, c.Path, c.Values(), c.Message)
}

// maxValueRunes bounds Old and New: a report line is read by humans and
// posted in pull request comments, and a changed description can be pages
// long. CEL rules and patterns fit comfortably.
const maxValueRunes = 200

// oneLine makes a value fit on one report line: line breaks are shown as
// "\n" and the value is clipped to max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(s)
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// tidy applies oneLine to every change's values.
func tidy(changes []Change) []Change {
	for i := range changes {
		changes[i].Old = oneLine(changes[i].Old, maxValueRunes)
		changes[i].New = oneLine(changes[i].New, maxValueRunes)
	}
	return changes
}
