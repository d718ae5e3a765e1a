// Package app holds the crdguard commands. Run is the whole program minus
// the process: tests call it with their own arguments and streams and check
// the exit code and output.
package app
