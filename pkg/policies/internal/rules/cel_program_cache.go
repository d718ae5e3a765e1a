package rules

import (
	"github.com/google/cel-go/cel"
	"k8s.io/utils/lru"
)

// celProgramCacheSize bounds the programs kept for reuse. Each engine
// build compiles every expression of every policy again (and a policy is
// compiled once more when it is validated): with the cache, an expression
// many policies share, or one no change touched, compiles once.
const celProgramCacheSize = 1024

// celPrograms holds compiled programs by expression and result type. A
// cel.Program is immutable and safe for concurrent use, so one serves
// every policy and engine that has its expression.
var celPrograms = lru.New(celProgramCacheSize)

// celProgramKey identifies a compilation: the same expression compiled for
// another result type is another check.
type celProgramKey struct {
	expression string
	want       string
}

func newCELProgramKey(expr string, want *cel.Type) celProgramKey {
	return celProgramKey{expression: expr, want: want.String()}
}
