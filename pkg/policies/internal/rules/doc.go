// Package rules compiles the rules of a GuardPolicy and checks requests
// against them. The engine (package policies) evaluates them; package vap
// reads their compiled form to write the same checks in CEL, so both start
// from one validated configuration.
//
// Each rule kind lives in its own file and is listed in registry.go.
package rules
