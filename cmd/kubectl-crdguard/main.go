// Command kubectl-crdguard is crdguard as a kubectl plugin: kubectl runs it
// for `kubectl crdguard ...`, and its help and usage say so. `kubectl
// crdguard audit` reads the kubeconfig as kubectl does ($KUBECONFIG or
// ~/.kube/config, its current context), since kubectl passes a plugin none
// of its own flags.
package main

import (
	"os"

	"github.com/crdguard/crdguard/cmd/crdguard/app"
)

func main() { os.Exit(app.Main("kubectl crdguard")) }
