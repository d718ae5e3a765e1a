package localcluster

import (
	"context"
	"os"
	"os/exec"
)

// Kubectl runs the real kubectl against the local cluster as one user.
type Kubectl struct {
	// Path is the kubectl binary, from KUBEBUILDER_ASSETS.
	Path       string
	Kubeconfig string
	// CacheDir is the discovery cache the runs share, so that each does
	// not fetch discovery again.
	CacheDir string
	// Home is kubectl's HOME: no configuration of the machine's user is
	// read.
	Home string
}

// Command is kubectl with args, without the command headers kubectl sends
// by default, which no test reads.
func (k Kubectl) Command(ctx context.Context, args ...string) *exec.Cmd {
	args = append([]string{"--kubeconfig=" + k.Kubeconfig, "--cache-dir=" + k.CacheDir}, args...)
	cmd := exec.CommandContext(ctx, k.Path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.Kubeconfig, "HOME="+k.Home, "KUBECTL_COMMAND_HEADERS=false")
	return cmd
}
