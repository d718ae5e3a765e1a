// Package golden compares a test's output with a file kept in testdata, or
// rewrites the file from the output when the test binary runs with
// -update. Every golden test in the module goes through it, so one flag
// refreshes them all: `make update-golden`.
package golden
