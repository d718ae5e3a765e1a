package webhook

import (
	"fmt"
	"strings"
)

// maxLoggedValue bounds each value a log line takes from a request. A
// review can carry megabytes in any string (an apiVersion, a name), and
// copying one into a line would let a caller write that much to the logs
// with every request.
const maxLoggedValue = 512

// bounded is s, cut to maxLoggedValue bytes with its length said.
func bounded(s string) string {
	if len(s) <= maxLoggedValue {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes)", strings.ToValidUTF8(s[:maxLoggedValue], ""), len(s))
}

// boundedError is an error whose message is bounded.
type boundedError struct{ err error }

func (e boundedError) Error() string { return bounded(e.err.Error()) }
func (e boundedError) Unwrap() error { return e.err }

// BoundError is err with its message bounded, for a log line that
// carries an error whose size the caller does not control.
func BoundError(err error) error {
	if err == nil {
		return nil
	}
	return boundedError{err}
}

// boundValues returns key/value pairs with their strings, string lists
// and errors bounded.
func boundValues(keysAndValues []any) []any {
	out := make([]any, len(keysAndValues))
	for i, v := range keysAndValues {
		switch v := v.(type) {
		case string:
			out[i] = bounded(v)
		case []string:
			b := make([]string, len(v))
			for j, s := range v {
				b[j] = bounded(s)
			}
			out[i] = b
		case error:
			out[i] = BoundError(v)
		default:
			out[i] = v
		}
	}
	return out
}
