// Command crdguard validates custom resources and CRD changes offline, with
// the same verdicts as kube-apiserver and the crdguard admission webhook.
package main

import (
	"os"

	"github.com/crdguard/crdguard/cmd/crdguard/app"
)

func main() { os.Exit(app.Main("crdguard")) }
