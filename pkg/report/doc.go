// Package report is crdguard's one finding model rendered as text, JSON,
// SARIF 2.1.0, JUnit XML and markdown; it is used by validate, diff, lint
// and audit. lint and diff have text (and diff markdown) in their own
// words: Options.Command "lint" and Options.Diff choose those writers, so
// that every format of every command is written by Write or a Writer.
//
// Producers fill in one Result per document, hand the slice to New, and pass
// the Report to Write with the Format the user asked for. Keeping a single
// model means every output format and the exit code agree on what was
// allowed, denied, skipped or broken.
//
// Document indexes are 0-based in the model and in JSON, because that is
// what programs consume; the text and JUnit outputs print them 1-based
// because people read those, and leave them out for sources that are not
// YAML streams (Result.NotStream: the Go files crdguard lint reports on).
package report
