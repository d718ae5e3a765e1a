package app

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/crdguard/crdguard/pkg/report"
)

// resultStream writes a validate run's results in input order whatever
// order the workers finish in, so that the output is deterministic. A
// result of the earliest unfinished source is written at once; the others
// wait for the sources before theirs, so memory holds only the results of
// sources ahead of an earlier one still running, never the whole run (a
// --show-stored result holds a whole object). Skipped results are held
// until the first checked one: a run that checks nothing is an error that
// writes no report (see checkedSomething).
type resultStream struct {
	streams Streams
	options reportOptions

	mu sync.Mutex
	// next is the earliest unfinished source; pending are the results of
	// those after it, and finished those of them that are complete.
	next     int
	pending  map[int][]report.Result
	finished map[int]bool
	// held are the skipped results before the first checked one.
	held   []report.Result
	writer *reportWriters
	// noCRD counts the objects no CRD defines, by "apiVersion kind".
	noCRD map[string]int
}

func newResultStream(streams Streams, options reportOptions) *resultStream {
	return &resultStream{streams: streams, options: options, pending: map[int][]report.Result{}, finished: map[int]bool{}, noCRD: map[string]int{}}
}

// result hands over the next result of source i.
func (s *resultStream) result(i int, r report.Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i == s.next {
		return s.add(r)
	}
	s.pending[i] = append(s.pending[i], r)
	return nil
}

// done tells that source i has no more results, and writes those that
// waited for it.
func (s *resultStream) done(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished[i] = true
	for s.finished[s.next] {
		delete(s.finished, s.next)
		s.next++
		waiting := s.pending[s.next]
		delete(s.pending, s.next)
		for _, r := range waiting {
			if err := s.add(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *resultStream) add(r report.Result) error {
	if r.Skipped && strings.HasPrefix(r.SkipReason, noCRDReason) {
		s.noCRD[r.APIVersion+" "+r.Kind]++
	}
	if r.Skipped && s.writer == nil {
		s.held = append(s.held, r)
		return nil
	}
	if err := s.open(); err != nil {
		return err
	}
	return s.writer.Add(r)
}

// open starts the report and writes the held results.
func (s *resultStream) open() error {
	if s.writer != nil {
		return nil
	}
	w, err := s.options.newReportWriters(s.streams.Out, "validate")
	if err != nil {
		return err
	}
	s.writer = w
	for _, r := range s.held {
		if err := w.Add(r); err != nil {
			return err
		}
	}
	s.held = nil
	return nil
}

// close ends the report once every source is done and returns its
// summary. A run that checked nothing is an error instead, unless
// allowEmpty, or allowNoCustomResources, which says so on stderr.
func (s *resultStream) close(allowEmpty, allowNoCustomResources bool, paths []string) (report.Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	warnSkipped(s.streams, s.noCRD)
	if s.writer == nil {
		if !allowEmpty && !allowNoCustomResources {
			held := len(s.held)
			return report.Summary{}, checkedSomething(report.Summary{Objects: held, Skipped: held}, paths)
		}
		// Accepted, but not in silence: a hook that passes because its
		// files hold no custom resource says so.
		if allowNoCustomResources {
			where := strings.Join(paths, ", ")
			if len(paths) > 1 {
				where = "the " + countOf(len(paths), "input")
			}
			fmt.Fprintf(s.streams.Err, "crdguard: note: no custom resource to check in %s: passed (--allow-no-custom-resources)\n", where)
		}
	}
	if err := s.open(); err != nil {
		return report.Summary{}, &exitError{code: ExitInternal, err: err}
	}
	summary, err := s.writer.Close()
	if err != nil {
		return summary, &exitError{code: ExitInternal, err: err}
	}
	return summary, nil
}

// checkedSomething fails a run that checked nothing: no object in the
// inputs, or none whose kind a CRD or a policy covers. Either is a wrong
// path or a missing --crds far more often than a clean run.
func checkedSomething(s report.Summary, paths []string) error {
	switch {
	case s.Objects == 0:
		return usageError("%s: no objects to validate (--allow-empty accepts it)", strings.Join(paths, ", "))
	case s.Skipped == s.Objects:
		return usageError("%s: no object was checked: no CRD defines their kinds and no policy matches them; pass their CRDs with --crds (--allow-empty accepts it)", strings.Join(paths, ", "))
	}
	return nil
}

// warnSkipped tells on stderr which kinds were not validated, so a missing
// --crds does not pass as a clean run. counts are skipped objects by
// "apiVersion kind".
func warnSkipped(streams Streams, counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	kinds := make([]string, 0, len(counts))
	total := 0
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%s (%d)", k, n))
		total += n
	}
	sort.Strings(kinds)
	fmt.Fprintf(streams.Err, "crdguard: warning: skipped %s whose kind no CRD defines: %s\n", countOf(total, "object"), strings.Join(kinds, ", "))
}

// countOf is "1 noun" or "N nouns".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
