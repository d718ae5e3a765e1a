// Command jsonschema-validate validates JSON documents against a JSON schema
// with github.com/santhosh-tekuri/jsonschema/v6, the validator kubeconform
// is built on (so this module already pins it). crdguard's tests run it on
// their SARIF output against the SARIF 2.1.0 schema (install.sh
// sarif-schema); it lives here because the root module does not depend on a
// JSON-schema validator.
//
// Usage: go run ./jsonschema-validate SCHEMA FILE...
//
// Formats ("uri", "date-time", ...) are asserted, as SARIF consumers such
// as code scanning services check them. Exit status: 0 when every file is
// valid, 1 when one is not, 2 on a usage or schema error.
package main

import (
	"fmt"
	"os"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: jsonschema-validate SCHEMA FILE...")
		os.Exit(2)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	schema, err := c.Compile(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "jsonschema-validate: %v\n", err)
		os.Exit(2)
	}
	status := 0
	for _, name := range os.Args[2:] {
		if err := validate(schema, name); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			status = 1
		}
	}
	os.Exit(status)
}

func validate(schema *jsonschema.Schema, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return err
	}
	return schema.Validate(doc)
}
