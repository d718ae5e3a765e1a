// Package testsuite reads and runs crdguard's declarative test suites:
// files named crdguard-test.yaml (or NAME.crdguard-test.yaml) that give
// CRDs, GuardPolicies and objects, and the verdict the engine must give
// each object, per rule and field path. `crdguard test` runs them; an
// operator's own Go tests can call Load and Run the same way.
//
// A suite is a file format, not a served API: its group,
// cli.crdguard.dev, is no API server's, and no CRD defines it. The JSON
// schema for editors is schemas/testsuite.json at the repository root.
package testsuite
