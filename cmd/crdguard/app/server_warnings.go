package app

import (
	"fmt"
	"io"
	"sync"
)

// serverWarnings prints the warnings the API server sends with its answers
// (a deprecated version listed, for example) as crdguard's other
// diagnostics, each once. client-go's default handler would log them
// through klog, which crdguard silences (see silenceKlog).
type serverWarnings struct {
	mu   sync.Mutex
	out  io.Writer
	seen map[string]bool
}

func newServerWarnings(out io.Writer) *serverWarnings {
	return &serverWarnings{out: out, seen: map[string]bool{}}
}

// HandleWarningHeader implements rest.WarningHandler. Only code 299 is a
// warning (RFC 7234), as client-go's own handlers read it.
func (s *serverWarnings) HandleWarningHeader(code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[text] {
		return
	}
	s.seen[text] = true
	fmt.Fprintf(s.out, "crdguard: warning: the API server says: %s\n", text)
}
