// Command hello is the smallest main package, for Setup.Build's test.
package main

func main() {}
