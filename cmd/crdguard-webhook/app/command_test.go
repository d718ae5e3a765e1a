package app

import (
	"context"
	"crypto/tls"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	examplePolicy = filepath.Join("..", "..", "..", "examples", "mysql", "policy.yaml")
	exampleCRD    = filepath.Join("..", "..", "..", "examples", "mysql", "crd.yaml")
)

// optionsError is a command line and the error it must get; "" for none.
type optionsError struct {
	name string
	args []string
	want string
}

// checkOptionsErrors parses each case's command line, after the flags
// every case shares, and compares the error with the case's.
func checkOptionsErrors(t *testing.T, shared []string, tests []optionsError) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, append(slices.Clone(shared), tt.args...)...)
			if got := errString(err); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// parse runs the command with args and a run function that records the
// options instead of serving.
func parse(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	var got *Options
	cmd := NewCommand(func(_ context.Context, o *Options) error {
		got = o
		return nil
	})
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(t.Context())
	if err != nil && got != nil {
		t.Fatalf("run was called although the command failed: %v", err)
	}
	return got, err
}

// checkOptions parses args and compares the options with the defaults,
// as parsing completes them, changed by want. It returns the parsed
// options for the checks that follow.
func checkOptions(t *testing.T, args []string, want func(o *Options)) *Options {
	t.Helper()
	got, err := parse(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	o := NewOptions()
	o.tlsMinVersion = tls.VersionTLS12
	want(o)
	if diff := cmp.Diff(o, got, cmp.AllowUnexported(Options{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	return got
}

func TestCommandOptions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want func(o *Options)
	}{{
		name: "defaults",
		args: []string{"--policies", examplePolicy},
		want: func(o *Options) { o.Policies = []string{examplePolicy} },
	}, {
		// No files: policies and CRDs are watched from the cluster.
		name: "cluster sources",
		args: nil,
		want: func(*Options) {},
	}, {
		name: "policy status",
		args: []string{"--policy-status", "--validating-configurations", "crdguard"},
		want: func(o *Options) { o.PolicyStatus, o.ValidatingConfigurations = true, []string{"crdguard"} },
	}, {
		name: "every flag",
		args: []string{
			"--policies", examplePolicy, "--crds", exampleCRD, "--crds", exampleCRD,
			"--bind-address", "127.0.0.1", "--port", "10250",
			"--cert-dir", "/certs", "--cert-name", "crt.pem", "--key-name", "key.pem",
			"--tls-min-version", "VersionTLS13",
			"--tls-cipher-suites", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
			"--enable-http2", "--health-probe-bind-address", "0", "--metrics-bind-address", ":9090",
			"--kubeconfig", "/kube/config", "--shutdown-timeout", "10s", "--dev",
			"--source-debounce", "2s",
			"--client-ca-file", exampleCRD, "--client-allowed-names", "kube-apiserver,front-proxy",
		},
		want: func(o *Options) {
			o.Policies, o.CRDs = []string{examplePolicy}, []string{exampleCRD, exampleCRD}
			o.Host, o.Port = "127.0.0.1", 10250
			o.CertDir, o.CertName, o.KeyName = "/certs", "crt.pem", "key.pem"
			o.TLSMinVersion, o.tlsMinVersion = "VersionTLS13", tls.VersionTLS13
			o.TLSCipherSuites = []string{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"}
			o.tlsCipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}
			o.EnableHTTP2 = true
			o.HealthProbeBindAddress, o.MetricsBindAddress = "0", ":9090"
			o.Kubeconfig, o.ShutdownTimeout, o.Dev = "/kube/config", 10*time.Second, true
			o.SourceDebounce = 2 * time.Second
			o.ClientCAFile, o.ClientAllowedNames = exampleCRD, []string{"kube-apiserver", "front-proxy"}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkOptions(t, tt.args, tt.want) })
	}
}

func TestCommandInvalid(t *testing.T) {
	checkOptionsErrors(t, nil, []optionsError{{
		name: "every invalid option at once",
		args: []string{
			"--policies", "does-not-exist.yaml", "--crds", exampleCRD, "--crds", "missing-crds/",
			"--port", "0", "--cert-dir", "", "--cert-name", "", "--key-name", "",
			"--tls-min-version", "VersionTLS10", "--tls-cipher-suites", "TLS_RSA_WITH_RC4_128_SHA,TLS_AES_128_GCM_SHA256",
			"--shutdown-timeout", "0s", "--source-debounce", "0s",
		},
		want: `[cert-dir: Required value, cert-name: Required value, crds[1]: Invalid value: "missing-crds/": cannot be read: no such file or directory, ` +
			`key-name: Required value, policies[0]: Invalid value: "does-not-exist.yaml": cannot be read: no such file or directory, ` +
			`port: Invalid value: 0: must be between 1 and 65535, shutdown-timeout: Invalid value: "0s": must be positive, ` +
			`source-debounce: Invalid value: "0s": must be positive, ` +
			`tls-cipher-suites[0]: Invalid value: "TLS_RSA_WITH_RC4_128_SHA": not a secure crypto/tls cipher suite, ` +
			`tls-cipher-suites[1]: Invalid value: "TLS_AES_128_GCM_SHA256": a TLS 1.3 cipher suite, which is not configurable: list TLS 1.2 suites only, ` +
			`tls-min-version: Unsupported value: "VersionTLS10": supported values: "VersionTLS12", "VersionTLS13"]`,
	}, {
		name: "a client CA without the names it may sign for",
		args: []string{"--policies", examplePolicy, "--client-ca-file", "missing-ca.crt"},
		want: `client-allowed-names: Required value: the names of the client certificates to accept: a CA such as the cluster's also signs every user's certificate`,
	}, {
		name: "client names without a CA",
		args: []string{"--policies", examplePolicy, "--client-allowed-names", "kube-apiserver,"},
		want: `[client-allowed-names[1]: Required value: an empty name matches no certificate, client-ca-file: Required value: --client-allowed-names needs the CA that signs those certificates]`,
	}, {
		name: "policy status of policies from files, with nothing to tell routing by",
		args: []string{"--policies", examplePolicy, "--policy-status"},
		want: `[policy-status: Invalid value: true: --policy-status writes the status of the cluster's GuardPolicies; it cannot be used with --policies, ` +
			`validating-configurations: Required value: --policy-status needs the ValidatingWebhookConfigurations that send requests to /validate (or --manage-webhook-rules) to tell whether a policy is enforced]`,
	}, {
		name: "policy status elects a replica: the lease outlasts a request",
		args: []string{"--policy-status", "--manage-webhook-rules=false", "--validating-configurations", "crdguard", "--webhook-timeout", "20s"},
		want: `leader-election-lease-duration: Invalid value: "15s": must be longer than --webhook-timeout 20s`,
	}, {
		name: "arguments",
		args: []string{"--policies", examplePolicy, "extra"},
		want: `unknown command "extra" for "crdguard-webhook"`,
	}, {
		name: "unknown flag",
		args: []string{"--policies", examplePolicy, "--insecure"},
		want: "unknown flag: --insecure",
	}})
}

// TestCommandRunError: the run function's error is the command's.
func TestCommandRunError(t *testing.T) {
	boom := errors.New("boom")
	cmd := NewCommand(func(context.Context, *Options) error { return boom })
	cmd.SetArgs([]string{"--policies", examplePolicy})
	if err := cmd.ExecuteContext(t.Context()); !errors.Is(err, boom) {
		t.Errorf("error = %v, want %v", err, boom)
	}
}

func TestTLSConfig(t *testing.T) {
	getCert := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return nil, nil }
	tests := []struct {
		name      string
		args      []string
		minimum   uint16
		protocols []string
	}{{
		name:      "TLS 1.2 and HTTP/1.1 only by default",
		args:      []string{"--policies", examplePolicy},
		minimum:   tls.VersionTLS12,
		protocols: []string{"http/1.1"},
	}, {
		name:      "HTTP/2 when enabled",
		args:      []string{"--policies", examplePolicy, "--enable-http2", "--tls-min-version", "VersionTLS13"},
		minimum:   tls.VersionTLS13,
		protocols: []string{"h2"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parse(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			// controller-runtime's starting point, before the options apply.
			cfg := &tls.Config{NextProtos: []string{"h2"}}
			o.tlsConfig(getCert)(cfg)
			if cfg.MinVersion != tt.minimum {
				t.Errorf("MinVersion = %x, want %x", cfg.MinVersion, tt.minimum)
			}
			if diff := cmp.Diff(tt.protocols, cfg.NextProtos); diff != "" {
				t.Errorf("NextProtos (-want +got):\n%s", diff)
			}
			if cfg.GetCertificate == nil {
				t.Error("GetCertificate not set: the certwatcher would not serve")
			}
		})
	}
}

func TestNewLogger(t *testing.T) {
	for _, dev := range []bool{false, true} {
		log, err := newLogger(dev)
		if err != nil {
			t.Fatal(err)
		}
		if got := log.V(1).Enabled(); got != dev {
			t.Errorf("dev=%v: debug enabled = %v", dev, got)
		}
	}
}
