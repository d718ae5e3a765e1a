// Package vap compiles GuardPolicies to ValidatingAdmissionPolicies and
// their bindings, which reach the engine's verdict inside kube-apiserver,
// and their defaults to MutatingAdmissionPolicies, which patch as the
// mutating webhook does. Each rule kind that has a CEL form has a file of
// its own; kindCompilations in registry.go says how every kind of the rules
// registry compiles, and a test fails for a kind it leaves out. What cannot
// be compiled is listed with the reason and stays with the webhook.
package vap
