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

// stackWorkers are goroutines that run functions handed to them.
type stackWorkers struct {
	once sync.Once
	// jobs is unbuffered: a job is handed over only to a worker that waits
	// for one.
	jobs chan *stackJob
}

// workersPerProc is how many workers there are for each of GOMAXPROCS: a
// request can be descheduled halfway, holding its worker, and one that
// finds none waiting runs where it is, as it would without them.
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

// do runs f on a waiting worker, or here when none waits, and returns
// when f has. A panic of f is raised again here, and a runtime.Goexit
// repeated here, so that net/http sees f end as it would have ended on
// this goroutine.
func (s *stackWorkers) do(f func()) {
	s.once.Do(s.start)
	job := stackJobs.Get().(*stackJob)
	job.run = f
	select {
	case s.jobs <- job:
	default:
		job.run = nil
		stackJobs.Put(job)
		f()
		return
	}
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

// start starts every worker at once: they live as long as the process,
// and their number does not grow with the load.
func (s *stackWorkers) start() {
	s.jobs = make(chan *stackJob)
	for range workersPerProc * runtime.GOMAXPROCS(0) {
		go s.work()
	}
}

func (s *stackWorkers) work() {
	for job := range s.jobs {
		s.call(job)
	}
}

// call runs job's function and hands over how it ended.
func (s *stackWorkers) call(job *stackJob) {
	returned := false
	defer func() {
		outcome := stackOutcome{returned: returned}
		if !returned {
			// recover is nil for runtime.Goexit (a panic(nil) is a
			// *runtime.PanicNilError), which ends this goroutine once
			// the deferred calls have run: a new worker takes its place.
			if outcome.panicValue = recover(); outcome.panicValue == nil {
				go s.work()
			}
		}
		job.done <- outcome
	}()
	job.run()
	returned = true
}
