package webhook

import (
	"runtime"
	"sync"
)

// warmStacks serves HTTP/2 requests on goroutines kept for the purpose.
// net/http serves every HTTP/2 request on a new goroutine, whose stack
// starts small and is copied each time it doubles on the way down the
// handlers, the JSON decoder and the rules: under load that copying took
// an eighth of the server's CPU time. A kept goroutine keeps its grown
// stack (the garbage collector halves an idle one now and then). grpc-go's
// NumStreamWorkers does the same for its streams. HTTP/1.x requests
// already run on their connection's goroutine, which lives as long as the
// connection.
var warmStacks stackWorkers

// stackWorkers are goroutines that run functions handed to them. A job
// goes to the worker that went idle last, whose stack is the likeliest
// to be in the processor's caches still.
type stackWorkers struct {
	once sync.Once
	mu   sync.Mutex
	// idle are the workers waiting for a job, the last to go idle last.
	idle []*stackWorker
}

// stackWorker is one kept goroutine's inbox.
type stackWorker struct {
	// jobs holds at most one job: a worker gets one only while idle.
	jobs chan *stackJob
}

// workersPerProc is how many workers there are for each of GOMAXPROCS: a
// request can be descheduled halfway, holding its worker, and one that
// finds none idle runs where it is, as it would without them.
const workersPerProc = 4

// stackJob is one function to run, and how it ended.
type stackJob struct {
	run  func()
	done chan stackOutcome
}

// stackOutcome is how a job's function ended: it returned, it panicked
// with panicValue, or it called runtime.Goexit.
type stackOutcome struct {
	returned   bool
	panicValue any
}

var stackJobs = sync.Pool{New: func() any { return &stackJob{done: make(chan stackOutcome, 1)} }}

// do runs f on an idle worker, or here when none is idle, and returns
// when f has. A panic of f is raised again here, and a runtime.Goexit
// repeated here, so that net/http sees f end as it would have ended on
// this goroutine.
func (s *stackWorkers) do(f func()) {
	s.once.Do(s.start)
	w := s.take()
	if w == nil {
		f()
		return
	}
	job := stackJobs.Get().(*stackJob)
	job.run = f
	w.jobs <- job
	outcome := <-job.done
	job.run = nil
	stackJobs.Put(job)
	switch {
	case outcome.returned:
	case outcome.panicValue != nil:
		panic(outcome.panicValue)
	default:
		runtime.Goexit()
	}
}

// take is the worker that went idle last, or nil when none is idle.
func (s *stackWorkers) take() *stackWorker {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.idle)
	if n == 0 {
		return nil
	}
	w := s.idle[n-1]
	s.idle = s.idle[:n-1]
	return w
}

// release has w go idle, as the worker that went idle last.
func (s *stackWorkers) release(w *stackWorker) {
	s.mu.Lock()
	s.idle = append(s.idle, w)
	s.mu.Unlock()
}

// start starts every worker at once: they live as long as the process,
// and their number does not grow with the load.
func (s *stackWorkers) start() {
	n := workersPerProc * runtime.GOMAXPROCS(0)
	s.idle = make([]*stackWorker, 0, n)
	for range n {
		w := &stackWorker{jobs: make(chan *stackJob, 1)}
		s.idle = append(s.idle, w)
		go s.work(w)
	}
}

func (s *stackWorkers) work(w *stackWorker) {
	for job := range w.jobs {
		s.call(w, job)
	}
}

// call runs job's function, goes idle again and hands over how the
// function ended.
func (s *stackWorkers) call(w *stackWorker, job *stackJob) {
	returned := false
	defer func() {
		outcome := stackOutcome{returned: returned}
		if !returned {
			// recover is nil for runtime.Goexit (a panic(nil) is a
			// *runtime.PanicNilError), which ends this goroutine once
			// the deferred calls have run: a new one serves w.
			if outcome.panicValue = recover(); outcome.panicValue == nil {
				go s.work(w)
			}
		}
		s.release(w)
		job.done <- outcome
	}()
	job.run()
	returned = true
}
