// Package vapmessage reads the findings back out of the messages of the
// ValidatingAdmissionPolicies that crdguard vap compiles, so tests can
// compare the API server's denials and warnings with the engine's
// violations.
package vapmessage

import (
	"regexp"
	"strings"
)

// Finding is one finding read back from a compiled policy's message.
type Finding struct {
	Policy, Rule string
	// Field is the field path, "<nil>" for the object itself.
	Field string
	// Message is the finding's message without the path, like the
	// engine's findings' Message.
	Message string
}

// messageRE reads "[policy/rule] findings"; findingStartRE finds
// where each finding begins: its path, then the name of a field.ErrorType.
var (
	messageRE      = regexp.MustCompile(`^\[([^/\]]+)/([^\]]+)\] (.*)$`)
	findingStartRE = regexp.MustCompile(`(?:^|; )((?:<nil>|[^ ;]+): (?:Invalid value|Required value|Forbidden|Not found|Unsupported value|Duplicate value)\b)`)
)

// Parse reads the findings out of the message of a validation that
// crdguard vap compiled: "[policy/rule] path: body; path: body". ok is
// false for a message of another form.
func Parse(msg string) (findings []Finding, ok bool) {
	m := messageRE.FindStringSubmatch(msg)
	if m == nil {
		return nil, false
	}
	policy, rule, rest := m[1], m[2], m[3]
	starts := findingStartRE.FindAllStringSubmatchIndex(rest, -1)
	if len(starts) == 0 || starts[0][2] != 0 {
		return nil, false
	}
	for i, s := range starts {
		end := len(rest)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		one := rest[s[2]:end]
		path, body, _ := strings.Cut(one, ": ")
		findings = append(findings, Finding{Policy: policy, Rule: rule, Field: path, Message: body})
	}
	return findings, true
}
