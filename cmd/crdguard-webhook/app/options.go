package app

import (
	"crypto/tls"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/internal/cluster"
	"github.com/crdguard/crdguard/internal/selfsigned"
	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Options configure crdguard-webhook. NewOptions sets every default named
// here; each field is one flag.
type Options struct {
	// CRDs are CRD files or directories whose schemas objects are validated
	// against (--crds, repeatable). Default: none. With --policies, none
	// means no schemas (only policies apply); without --policies, CRDs are
	// watched from the cluster instead, and --crds is for clusters where
	// the webhook may not read CRDs.
	CRDs []string
	// Policies are GuardPolicy files or directories (--policies,
	// repeatable). Default: none, and GuardPolicies are watched from the
	// cluster and applied without a restart; that needs the GuardPolicy
	// CRD installed and get, list and watch on guardpolicies (and on
	// customresourcedefinitions unless --crds is given).
	Policies []string
	// SourceDebounce is how long the webhook waits after a GuardPolicy or
	// CRD changes in the cluster before it rebuilds, so a burst of changes
	// costs one rebuild (--source-debounce). Default 500ms.
	SourceDebounce time.Duration
	// Mode says where GuardPolicy rules are enforced
	// (--enforcement): "webhook" (every rule here), "vap" (the
	// ValidatingAdmissionPolicies `crdguard vap` compiled are installed;
	// only the rules they cannot express are evaluated here) or "both"
	// (installed, and every rule evaluated here too). Default "webhook".
	Mode string

	// Host is the address the webhook server binds (--bind-address).
	// Default "": every interface.
	Host string
	// Port is the webhook server's port (--port). Default 9443.
	Port int
	// CertDir holds the serving certificate and key, as mounted from
	// cert-manager's Secret (--cert-dir). Default
	// "/tmp/k8s-webhook-server/serving-certs".
	CertDir string
	// CertName is the certificate's file in CertDir (--cert-name). Default
	// "tls.crt".
	CertName string
	// KeyName is the key's file in CertDir (--key-name). Default "tls.key".
	KeyName string
	// TLSMode is where the serving certificate comes from (--tls-mode):
	// "files", CertDir's, reloaded when it changes; or "self-signed", issued
	// and rotated by the webhook in SelfSignedSecret, its CA injected into
	// the configurations named below (internal/selfsigned). Default "files".
	TLSMode string
	// SelfSignedSecret is the Secret, namespace/name, holding the CAs and
	// the serving certificate (--self-signed-secret). Required with
	// self-signed; created when missing.
	SelfSignedSecret string
	// SelfSignedDNSNames are the names the serving certificate is for, the
	// webhook Service's (--self-signed-dns-names). Required with
	// self-signed.
	SelfSignedDNSNames []string
	// MaxInFlightRequestBytes bounds the bytes of the request bodies read
	// and handled at once (--max-in-flight-request-bytes): a body waits
	// for room until its deadline, then gets a 503. Default: 64 MiB, at
	// least twice the 7 MiB bound of one body.
	MaxInFlightRequestBytes int64

	// ValidatingConfigurations are the ValidatingWebhookConfigurations
	// that send requests to /validate (--validating-configurations). A
	// GuardPolicy matching kinds none of them routes is named in a
	// /validate-policy warning and the crdguard_policy_unrouted_kinds
	// metric. Default: none, and routing is not checked.
	ValidatingConfigurations []string

	// SelfSignedValidatingConfigurations and
	// SelfSignedMutatingConfigurations name the webhook configurations
	// whose caBundle is kept equal to the Secret's ca.crt
	// (--self-signed-validating-configurations,
	// --self-signed-mutating-configurations). Default: none.
	SelfSignedValidatingConfigurations []string
	SelfSignedMutatingConfigurations   []string
	// SelfSignedCADuration is the lifetime of a self-signed CA
	// (--self-signed-ca-duration). Default 8760h; rotated at two thirds.
	SelfSignedCADuration time.Duration
	// SelfSignedDuration is the lifetime of a serving certificate
	// (--self-signed-duration). Default 2160h; renewed at two thirds.
	SelfSignedDuration time.Duration
	// SelfSignedCAOverlap is how long a new CA is trusted before it signs,
	// and the old one after (--self-signed-ca-overlap). Default 24h; at
	// most a sixth of the CA duration.
	SelfSignedCAOverlap time.Duration
	// TLSMinVersion is the lowest TLS version served (--tls-min-version):
	// "VersionTLS12" or "VersionTLS13". Default "VersionTLS12".
	TLSMinVersion string
	// TLSCipherSuites are the TLS 1.2 cipher suites served, by their
	// crypto/tls names (--tls-cipher-suites). Default: none given, Go's
	// secure defaults. TLS 1.3 suites are not configurable.
	TLSCipherSuites []string
	// EnableHTTP2 serves HTTP/2 too (--enable-http2). Default false: HTTP/2
	// stream handling has had denial-of-service flaws (CVE-2023-44487,
	// CVE-2023-39325) and the API server does not need it.
	EnableHTTP2 bool
	// ClientCAFile is a PEM bundle of the CAs whose client certificates the
	// webhook server accepts (--client-ca-file). When set, a caller that
	// presents no certificate, or one they did not sign, or one for a name
	// not in ClientAllowedNames, fails the TLS handshake. Reread when the
	// file changes. Default empty: any caller is served.
	ClientCAFile string
	// ClientAllowedNames are the client certificates accepted, by subject
	// common name or DNS name (--client-allowed-names). Required with
	// ClientCAFile: a cluster CA also signs every user's certificate.
	ClientAllowedNames []string

	// HealthProbeBindAddress serves /healthz and /readyz
	// (--health-probe-bind-address). Default ":8081"; "0" disables them.
	HealthProbeBindAddress string
	// MetricsBindAddress serves Prometheus metrics on /metrics
	// (--metrics-bind-address). Default "127.0.0.1:8080": plain HTTP
	// without authentication is for this host only; "0" disables them.
	MetricsBindAddress string
	// MetricsSecure serves /metrics over HTTPS to callers that
	// authenticate to the API server and may get the /metrics URL
	// (--metrics-secure): a TokenReview and a SubjectAccessReview per
	// scrape, as kubebuilder's metrics filter does. Default: false.
	MetricsSecure bool
	// PprofBindAddress serves Go's /debug/pprof profiles
	// (--pprof-bind-address). Default "": off, since profiles expose the
	// process's memory.
	PprofBindAddress string
	// Kubeconfig is the kubeconfig file of the cluster (--kubeconfig).
	// Default "": $KUBECONFIG, the in-cluster config, or ~/.kube/config.
	Kubeconfig string
	// ShutdownDelay is how long the server keeps serving after SIGTERM,
	// with /readyz failing and each answer asking its client to close the
	// connection, before the graceful shutdown starts (--shutdown-delay).
	// Default: 0.
	ShutdownDelay time.Duration
	// ShutdownTimeout bounds the graceful shutdown that lets in-flight
	// requests finish (--shutdown-timeout). Default 30s: the API server's
	// longest webhook timeout. Set the pod's terminationGracePeriodSeconds
	// above it, or the kubelet kills requests still in flight.
	ShutdownTimeout time.Duration
	// VerifyFastPaths validates objects (CRD guard replays) with and
	// without crdguard's fast paths, and fails closed on a difference: a
	// denied CRD update, an error elsewhere (--verify-fast-paths).
	// Default false: it doubles the CPU of validation.
	VerifyFastPaths bool
	// GuardCRDs serves /validate-crd, the CRD upgrade guard
	// (--guard-crds). Default false: it needs list on every guarded kind.
	// It needs --guard-crds-selector or --guard-crd-names, or both (a CRD
	// either selects is guarded).
	GuardCRDs bool
	// GuardCRDsSelector selects guarded CRDs by label, in kubectl's
	// selector syntax (--guard-crds-selector). Use the same selector as the
	// webhook configuration's objectSelector. Default "": none by label.
	GuardCRDsSelector string
	// GuardCRDNames are guarded CRDs by name, plural.group
	// (--guard-crd-names). Default: none.
	GuardCRDNames []string
	// CRDApproverUsers, CRDApproverGroups and CRDApproverServiceAccounts
	// ("namespace/name", for a release pipeline) may approve breaking CRD
	// changes with crdguard.dev/approve: "<check>[,...]: <reason>"
	// (--crd-approvers-users, --crd-approvers-groups,
	// --crd-approvers-service-accounts). Default: nobody.
	CRDApproverUsers           []string
	CRDApproverGroups          []string
	CRDApproverServiceAccounts []string
	// CRDReplayMaxObjects bounds the stored objects /validate-crd lists
	// and replays for one CRD update, at each changed version; more denies
	// the update (--crd-replay-max-objects). Default 4000: what the default
	// timeout replays, at 600–750 objects a second.
	CRDReplayMaxObjects int
	// CRDReplayPageSize is the limit of one list call
	// (--crd-replay-page-size). Default 500.
	CRDReplayPageSize int64
	// CRDReplayTimeout bounds listing and replaying for one CRD update
	// (--crd-replay-timeout). Default 8s: under the API server's default
	// webhook timeout of 10s, so the webhook answers before it is cut off.
	CRDReplayTimeout time.Duration
	// CRDReplayConcurrency bounds the CRD updates replayed at once; the
	// others wait within --crd-replay-timeout (--crd-replay-concurrency).
	// Default: 4.
	CRDReplayConcurrency int
	// CRDReplayQPS and CRDReplayBurst are the client-side rate limit of
	// the replay's list calls, its own so that replays neither wait behind
	// nor starve the informers (--crd-replay-qps, --crd-replay-burst).
	// Default: 50 and 100.
	CRDReplayQPS   float32
	CRDReplayBurst int

	// Audit runs the background audit (--audit): the elected replica
	// evaluates the stored objects the cluster's GuardPolicies match and
	// writes the findings as OpenReports Reports. Default false. It needs
	// GuardPolicies from the cluster (not --policies), the OpenReports
	// CRDs, and turns on leader election (Lease crdguard-audit).
	Audit bool
	// AuditInterval is the time between audits when no GuardPolicy or CRD
	// changes (--audit-interval). Default 1h.
	AuditInterval time.Duration
	// AuditQPS bounds the audit's requests per second: object lists and
	// report writes (--audit-qps). Default 20.
	AuditQPS float32
	// AuditPageSize is the limit of one list call of the audit
	// (--audit-page-size). Default 250.
	AuditPageSize int64
	// LeaderElectionNamespace holds the audit's Lease
	// (--leader-election-namespace). Default "": the pod's namespace.
	LeaderElectionNamespace string
	// LeaderElectionLeaseDuration is how long a leader holds the Lease
	// without renewing it (--leader-election-lease-duration); it renews
	// within two thirds of it. Default 15s.
	LeaderElectionLeaseDuration time.Duration

	// ManageWebhookRules keeps the rules of validate.crdguard.dev and
	// mutate.crdguard.dev in the configurations named WebhookConfiguration
	// equal to what the GuardPolicies match (--manage-webhook-rules); the
	// elected replica writes them. Default false. It needs GuardPolicies
	// from the cluster and turns on leader election (Lease
	// crdguard-audit, shared with the audit).
	ManageWebhookRules bool
	// WebhookConfiguration names the ValidatingWebhookConfiguration and
	// the MutatingWebhookConfiguration whose rules are managed
	// (--webhook-configuration).
	WebhookConfiguration string
	// MutatingWebhook tells whether the MutatingWebhookConfiguration
	// exists (--mutating-webhook). Default true.
	MutatingWebhook bool
	// PolicyStatus writes the Ready and Enforced conditions of every
	// GuardPolicy (--policy-status); the elected replica writes them.
	// Default false. It needs GuardPolicies from the cluster, a
	// configuration to read what reaches /validate
	// (--validating-configurations or --manage-webhook-rules), and turns
	// on leader election.
	PolicyStatus bool
	// WebhookTimeout is the timeoutSeconds of the webhooks
	// (--webhook-timeout), which must stay below the lease duration: a
	// leader stuck behind a request no longer than the timeout still
	// renews its Lease. Default 10s.
	WebhookTimeout time.Duration

	// MemoryLimit is the container's memory limit, as the Downward API
	// gives it (--memory-limit); the Go runtime's soft memory limit is set
	// to memoryLimitShare of it. The runtime collects harder as the heap
	// nears the soft limit; at the container's limit itself nothing would
	// be left for what it does not count (thread stacks, memory not yet
	// returned to the system, cgroup page cache) and the kernel would kill
	// the process first. Default "": the runtime's own, GOMEMLIMIT or none;
	// setting both is an error.
	MemoryLimit string

	// ApprovalKeyFile holds the key that signs and verifies approval
	// records (--approval-key-file): at least 32 bytes, the same file in
	// every replica, typically a mounted Secret; read at the start.
	// Default "": records are unsigned, and a stored approval approves no
	// DELETE.
	ApprovalKeyFile string

	// Dev logs human-readable console lines at debug level (--dev).
	// Default false: JSON at info level.
	Dev bool

	// Set by Complete from the fields above.
	tlsMinVersion   uint16
	tlsCipherSuites []uint16
	memoryLimit     int64
}

// memoryLimitShare is the part of --memory-limit the Go runtime's soft
// limit is set to: 90%, 51 MiB of headroom at the chart's 512Mi.
const memoryLimitShare = 0.9

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		Port:                    9443,
		CertDir:                 "/tmp/k8s-webhook-server/serving-certs",
		CertName:                "tls.crt",
		KeyName:                 "tls.key",
		TLSMode:                 TLSModeFiles,
		SelfSignedCADuration:    selfsigned.DefaultCADuration,
		SelfSignedDuration:      selfsigned.DefaultDuration,
		SelfSignedCAOverlap:     selfsigned.DefaultOverlap,
		TLSMinVersion:           "VersionTLS12",
		HealthProbeBindAddress:  ":8081",
		MetricsBindAddress:      "127.0.0.1:8080",
		ShutdownTimeout:         30 * time.Second,
		SourceDebounce:          500 * time.Millisecond,
		MaxInFlightRequestBytes: 64 << 20,
		Mode:                    string(cluster.ModeWebhook),
		CRDReplayMaxObjects:     4000,
		CRDReplayPageSize:       500,
		CRDReplayTimeout:        8 * time.Second,
		CRDReplayConcurrency:    4,
		CRDReplayQPS:            50,
		CRDReplayBurst:          100,
		AuditInterval:           time.Hour,
		AuditQPS:                20,
		AuditPageSize:           250,

		LeaderElectionLeaseDuration: 15 * time.Second,
		MutatingWebhook:             true,
		WebhookTimeout:              10 * time.Second,
	}
}

// AddFlags binds every option to its flag.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.CRDs, "crds", o.CRDs, "CRD file or directory (repeatable); a path without a CRD stops the start; default: with --policies none, else watched from the cluster")
	fs.StringArrayVar(&o.Policies, "policies", o.Policies, "GuardPolicy file or directory (repeatable), loaded before anything else: a path without a GuardPolicy stops the start; default: watched from the cluster")
	fs.DurationVar(&o.SourceDebounce, "source-debounce", o.SourceDebounce, "wait after a GuardPolicy or CRD change in the cluster before rebuilding")
	fs.StringVar(&o.Mode, "enforcement", o.Mode, "where rules are enforced: webhook, vap (only the rules crdguard vap cannot compile are evaluated here) or both")
	fs.StringVar(&o.Host, "bind-address", o.Host, "address the webhook server binds; empty for every interface")
	fs.IntVar(&o.Port, "port", o.Port, "port of the webhook server")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "directory with the serving certificate and key")
	fs.StringVar(&o.CertName, "cert-name", o.CertName, "serving certificate file in --cert-dir")
	fs.StringVar(&o.KeyName, "key-name", o.KeyName, "serving key file in --cert-dir")
	fs.StringVar(&o.TLSMode, "tls-mode", o.TLSMode, "where the serving certificate comes from: "+strings.Join(tlsModes, " or "))
	fs.StringVar(&o.SelfSignedSecret, "self-signed-secret", o.SelfSignedSecret, "namespace/name of the Secret holding the self-signed CAs and serving certificate; created when missing")
	fs.StringSliceVar(&o.SelfSignedDNSNames, "self-signed-dns-names", o.SelfSignedDNSNames, "DNS names of the self-signed serving certificate, comma-separated")
	fs.Int64Var(&o.MaxInFlightRequestBytes, "max-in-flight-request-bytes", o.MaxInFlightRequestBytes, "bytes of request bodies read and handled at once, at least 14680064 (twice the 7 MiB bound of one body); a body that finds no room before its deadline gets a 503, and failurePolicy decides")
	fs.StringSliceVar(&o.ValidatingConfigurations, "validating-configurations", o.ValidatingConfigurations, "ValidatingWebhookConfigurations that send requests to /validate, comma-separated: GuardPolicies matching kinds they do not route get a warning and the crdguard_policy_unrouted_kinds metric (needs get on them); default none: not checked")
	fs.StringSliceVar(&o.SelfSignedValidatingConfigurations, "self-signed-validating-configurations", o.SelfSignedValidatingConfigurations, "ValidatingWebhookConfigurations whose caBundle is kept current, comma-separated")
	fs.StringSliceVar(&o.SelfSignedMutatingConfigurations, "self-signed-mutating-configurations", o.SelfSignedMutatingConfigurations, "MutatingWebhookConfigurations whose caBundle is kept current, comma-separated")
	fs.DurationVar(&o.SelfSignedCADuration, "self-signed-ca-duration", o.SelfSignedCADuration, "lifetime of a self-signed CA; rotated with overlaps at two thirds")
	fs.DurationVar(&o.SelfSignedDuration, "self-signed-duration", o.SelfSignedDuration, "lifetime of a self-signed serving certificate; renewed at two thirds")
	fs.DurationVar(&o.SelfSignedCAOverlap, "self-signed-ca-overlap", o.SelfSignedCAOverlap, "how long a new CA is trusted before it signs, and the old one after")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", o.TLSMinVersion, "lowest TLS version: "+strings.Join(slices.Sorted(maps.Keys(tlsVersions)), " or "))
	fs.StringSliceVar(&o.TLSCipherSuites, "tls-cipher-suites", o.TLSCipherSuites, "TLS 1.2 cipher suites (crypto/tls names, comma-separated); default Go's secure suites")
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", o.EnableHTTP2, "serve HTTP/2 as well as HTTP/1.1")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "PEM bundle of the CAs whose client certificates the webhook server requires, reread on change (the API server presents one through its AdmissionConfiguration's kubeConfigFile); default none: any caller is served")
	fs.StringSliceVar(&o.ClientAllowedNames, "client-allowed-names", o.ClientAllowedNames, "the client certificates accepted with --client-ca-file, by subject common name or DNS name, comma-separated")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, `address of /healthz and /readyz; "0" disables them`)
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, `address of /metrics; "0" disables it. Without --metrics-secure keep it on localhost: anyone who reaches it can read it`)
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, "serve /metrics over HTTPS to callers the API server authenticates and authorizes for get on the /metrics URL (needs create on tokenreviews and subjectaccessreviews)")
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", o.PprofBindAddress, `address of /debug/pprof; empty disables it`)
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig file; default $KUBECONFIG, in-cluster, or ~/.kube/config. With --policies (and --crds) none is needed, unless --audit, --guard-crds, --tls-mode=self-signed, --validating-configurations, --metrics-secure or a namespaceSelector needs the cluster")
	fs.DurationVar(&o.ShutdownDelay, "shutdown-delay", o.ShutdownDelay, "how long to keep serving after SIGTERM, with /readyz failing and answers asking clients to close their connections, before the graceful shutdown; keep terminationGracePeriodSeconds above it plus --shutdown-timeout")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "how long a graceful shutdown waits for in-flight requests")
	fs.BoolVar(&o.VerifyFastPaths, "verify-fast-paths", o.VerifyFastPaths, "validate objects with and without crdguard's fast paths and fail closed on any difference (the CRD guard denies, other requests get an HTTP 500 for failurePolicy; logged); about twice the CPU of validation")
	fs.BoolVar(&o.GuardCRDs, "guard-crds", o.GuardCRDs, "serve /validate-crd, the CRD upgrade guard; needs list on the guarded kinds")
	fs.StringVar(&o.GuardCRDsSelector, "guard-crds-selector", o.GuardCRDsSelector, "label selector of the CRDs /validate-crd guards")
	fs.StringSliceVar(&o.GuardCRDNames, "guard-crd-names", o.GuardCRDNames, "names (plural.group) of the CRDs /validate-crd guards, comma-separated")
	fs.StringSliceVar(&o.CRDApproverUsers, "crd-approvers-users", o.CRDApproverUsers, "users who may approve breaking CRD changes with crdguard.dev/approve")
	fs.StringSliceVar(&o.CRDApproverGroups, "crd-approvers-groups", o.CRDApproverGroups, "groups whose members may approve breaking CRD changes with crdguard.dev/approve")
	fs.StringSliceVar(&o.CRDApproverServiceAccounts, "crd-approvers-service-accounts", o.CRDApproverServiceAccounts, "service accounts (namespace/name) that may approve breaking CRD changes with crdguard.dev/approve")
	fs.IntVar(&o.CRDReplayMaxObjects, "crd-replay-max-objects", o.CRDReplayMaxObjects, "most stored objects /validate-crd replays for one CRD update; more denies it (raise --crd-replay-timeout with it)")
	fs.Int64Var(&o.CRDReplayPageSize, "crd-replay-page-size", o.CRDReplayPageSize, "objects per list call when /validate-crd reads stored objects")
	fs.IntVar(&o.CRDReplayConcurrency, "crd-replay-concurrency", o.CRDReplayConcurrency, "CRD updates /validate-crd replays stored objects for at once; the others wait within --crd-replay-timeout")
	fs.Float32Var(&o.CRDReplayQPS, "crd-replay-qps", o.CRDReplayQPS, "most list calls per second of the replays, a rate limit of their own")
	fs.IntVar(&o.CRDReplayBurst, "crd-replay-burst", o.CRDReplayBurst, "burst of the replays' list calls above --crd-replay-qps")
	fs.DurationVar(&o.CRDReplayTimeout, "crd-replay-timeout", o.CRDReplayTimeout, "time /validate-crd may spend listing and replaying stored objects; keep it below the webhook timeout")
	fs.BoolVar(&o.Audit, "audit", o.Audit, "audit stored objects in the background on the elected replica and write OpenReports Reports")
	fs.DurationVar(&o.AuditInterval, "audit-interval", o.AuditInterval, "time between background audits when no GuardPolicy or CRD changes")
	fs.Float32Var(&o.AuditQPS, "audit-qps", o.AuditQPS, "most requests per second of the background audit")
	fs.Int64Var(&o.AuditPageSize, "audit-page-size", o.AuditPageSize, "objects per list call of the background audit")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace, "namespace of the background audit's Lease; default the pod's")
	fs.DurationVar(&o.LeaderElectionLeaseDuration, "leader-election-lease-duration", o.LeaderElectionLeaseDuration, "how long the elected replica holds its Lease without renewing it; must exceed --webhook-timeout")
	fs.BoolVar(&o.ManageWebhookRules, "manage-webhook-rules", o.ManageWebhookRules, "keep the rules of validate.crdguard.dev and mutate.crdguard.dev in the configurations named --webhook-configuration equal to what the GuardPolicies match (the elected replica writes them; needs get and patch on the two)")
	fs.StringVar(&o.WebhookConfiguration, "webhook-configuration", o.WebhookConfiguration, "name of the ValidatingWebhookConfiguration and MutatingWebhookConfiguration whose rules --manage-webhook-rules keeps")
	fs.BoolVar(&o.MutatingWebhook, "mutating-webhook", o.MutatingWebhook, "whether the MutatingWebhookConfiguration with mutate.crdguard.dev exists, for --manage-webhook-rules")
	fs.BoolVar(&o.PolicyStatus, "policy-status", o.PolicyStatus, "write the Ready and Enforced conditions of every GuardPolicy (the elected replica writes them; needs patch on guardpolicies/status and get on validatingadmissionpolicies and their bindings)")
	fs.DurationVar(&o.WebhookTimeout, "webhook-timeout", o.WebhookTimeout, "timeoutSeconds of the webhook configurations; must be below --leader-election-lease-duration")
	fs.StringVar(&o.MemoryLimit, "memory-limit", o.MemoryLimit, "the container's memory limit (a quantity, such as the Downward API's limits.memory); the Go runtime's soft memory limit is set to 90% of it. Not with GOMEMLIMIT")
	fs.StringVar(&o.ApprovalKeyFile, "approval-key-file", o.ApprovalKeyFile, "file with the key (at least 32 bytes, the same in every replica) that signs crdguard.dev/last-approval records; without it a stored approval approves no DELETE")
	fs.BoolVar(&o.Dev, "dev", o.Dev, "log human-readable console lines at debug level instead of JSON")
}

// tlsVersions are the versions --tls-min-version accepts. Older ones are
// not offered: they are deprecated (RFC 8996).
var tlsVersions = map[string]uint16{
	"VersionTLS12": tls.VersionTLS12,
	"VersionTLS13": tls.VersionTLS13,
}

// Complete derives the values Run uses from the flags. What it cannot
// derive is left for Validate to report.
func (o *Options) Complete() {
	o.tlsMinVersion = tlsVersions[o.TLSMinVersion]
	o.memoryLimit = 0
	if q, err := resource.ParseQuantity(o.MemoryLimit); err == nil {
		o.memoryLimit = q.Value()
	}
	o.tlsCipherSuites = nil
	for _, name := range o.TLSCipherSuites {
		if id, ok := cipherSuite(name); ok {
			o.tlsCipherSuites = append(o.tlsCipherSuites, id)
		}
	}
}

// cipherSuite looks up a secure TLS 1.2 cipher suite by name. Go's
// insecure ones are not accepted at all, and TLS 1.3 ones are not
// configurable: given as the only suite, one would fail every TLS 1.2
// handshake.
func cipherSuite(name string) (uint16, bool) {
	for _, s := range tls.CipherSuites() {
		if s.Name == name && slices.Contains(s.SupportedVersions, tls.VersionTLS12) {
			return s.ID, true
		}
	}
	return 0, false
}

// isTLS13Suite tells whether name is a TLS 1.3 cipher suite.
func isTLS13Suite(name string) bool {
	return slices.ContainsFunc(tls.CipherSuites(), func(s *tls.CipherSuite) bool {
		return s.Name == name && !slices.Contains(s.SupportedVersions, tls.VersionTLS12)
	})
}

// Validate reports every invalid option, not only the first, each at the
// flag's name.
func (o *Options) Validate() field.ErrorList {
	var errs field.ErrorList
	for path, files := range map[string][]string{"crds": o.CRDs, "policies": o.Policies} {
		for i, f := range files {
			if _, err := os.Stat(f); err != nil {
				errs = append(errs, field.Invalid(field.NewPath(path).Index(i), f, "cannot be read: "+pathError(err)))
			}
		}
	}
	if o.Port < 1 || o.Port > 65535 {
		errs = append(errs, field.Invalid(field.NewPath("port"), o.Port, "must be between 1 and 65535"))
	}
	if o.CertDir == "" {
		errs = append(errs, field.Required(field.NewPath("cert-dir"), ""))
	}
	if o.CertName == "" {
		errs = append(errs, field.Required(field.NewPath("cert-name"), ""))
	}
	if o.KeyName == "" {
		errs = append(errs, field.Required(field.NewPath("key-name"), ""))
	}
	if _, ok := tlsVersions[o.TLSMinVersion]; !ok {
		errs = append(errs, field.NotSupported(field.NewPath("tls-min-version"), o.TLSMinVersion, slices.Sorted(maps.Keys(tlsVersions))))
	}
	for i, name := range o.TLSCipherSuites {
		switch _, ok := cipherSuite(name); {
		case isTLS13Suite(name):
			errs = append(errs, field.Invalid(field.NewPath("tls-cipher-suites").Index(i), name, "a TLS 1.3 cipher suite, which is not configurable: list TLS 1.2 suites only"))
		case !ok:
			errs = append(errs, field.Invalid(field.NewPath("tls-cipher-suites").Index(i), name, "not a secure crypto/tls cipher suite"))
		}
	}
	errs = append(errs, o.validateClientAuth()...)
	if !slices.Contains(cluster.Modes, cluster.Mode(o.Mode)) {
		errs = append(errs, field.NotSupported(field.NewPath("enforcement"), o.Mode, cluster.Modes))
	}
	if o.MaxInFlightRequestBytes < webhook.MinBodyBudget {
		errs = append(errs, field.Invalid(field.NewPath("max-in-flight-request-bytes"), o.MaxInFlightRequestBytes, fmt.Sprintf("must be at least %d, twice the bound of one body", webhook.MinBodyBudget)))
	}
	errs = append(errs, o.validateMemoryLimit()...)
	errs = append(errs, positive("source-debounce", o.SourceDebounce)...)
	if o.ShutdownDelay < 0 {
		errs = append(errs, field.Invalid(field.NewPath("shutdown-delay"), o.ShutdownDelay.String(), "must not be negative"))
	}
	errs = append(errs, positive("shutdown-timeout", o.ShutdownTimeout)...)
	errs = append(errs, o.validateCRDGuard()...)
	errs = append(errs, o.validateTLSMode()...)
	errs = append(errs, o.validateAudit()...)
	errs = append(errs, o.validateManagedRules()...)
	errs = append(errs, o.validatePolicyStatus()...)
	// Validation runs over a map: sort so the message is the same each run.
	slices.SortStableFunc(errs, func(a, b *field.Error) int { return strings.Compare(a.Field, b.Field) })
	return errs
}

// validateMemoryLimit checks --memory-limit: a quantity of at least
// MinBodyBudget, and the only soft limit given.
func (o *Options) validateMemoryLimit() field.ErrorList {
	if o.MemoryLimit == "" {
		return nil
	}
	path := field.NewPath("memory-limit")
	q, err := resource.ParseQuantity(o.MemoryLimit)
	if err != nil {
		return field.ErrorList{field.Invalid(path, o.MemoryLimit, err.Error())}
	}
	if q.Value() < webhook.MinBodyBudget {
		return field.ErrorList{field.Invalid(path, o.MemoryLimit, fmt.Sprintf("must be at least %d bytes, the smallest body budget", webhook.MinBodyBudget))}
	}
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		return field.ErrorList{field.Invalid(path, o.MemoryLimit, "GOMEMLIMIT="+env+" sets the Go memory limit too: set one of them")}
	}
	return nil
}

// GoMemoryLimit is the Go runtime's soft memory limit --memory-limit
// asks for; 0 for none.
func (o *Options) GoMemoryLimit() int64 {
	return int64(float64(o.memoryLimit) * memoryLimitShare)
}

// positive is the error of a flag that must be positive, none when v is.
// A duration's value is given as written on the command line ("0s"), not
// as a count of nanoseconds.
func positive[T int | int64 | float32 | time.Duration](flag string, v T) field.ErrorList {
	if v > 0 {
		return nil
	}
	var value any = v
	if d, ok := value.(time.Duration); ok {
		value = d.String()
	}
	return field.ErrorList{field.Invalid(field.NewPath(flag), value, "must be positive")}
}

// pathError is an os error without the path it repeats.
func pathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return fmt.Sprint(err)
}

// validateCRDGuard checks the /validate-crd flags. Selecting CRDs without
// --guard-crds is an error rather than ignored: whoever set them meant the
// guard to run.
func (o *Options) validateCRDGuard() field.ErrorList {
	var errs field.ErrorList
	if !o.GuardCRDs {
		if o.GuardCRDsSelector != "" || len(o.GuardCRDNames) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("guard-crds"), false, "--guard-crds-selector and --guard-crd-names need --guard-crds"))
		}
		return errs
	}
	if o.GuardCRDsSelector == "" && len(o.GuardCRDNames) == 0 {
		errs = append(errs, field.Required(field.NewPath("guard-crds-selector"), "--guard-crds needs --guard-crds-selector or --guard-crd-names"))
	}
	if o.GuardCRDsSelector != "" {
		if sel, err := labels.Parse(o.GuardCRDsSelector); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("guard-crds-selector"), o.GuardCRDsSelector, err.Error()))
		} else if sel.Empty() {
			// An empty selector would match every CRD: say so with a name list.
			errs = append(errs, field.Invalid(field.NewPath("guard-crds-selector"), o.GuardCRDsSelector, "selects nothing"))
		}
	}
	errs = append(errs, policies.ValidateServiceAccountApprovers(o.CRDApproverServiceAccounts, field.NewPath("crd-approvers-service-accounts"))...)
	errs = append(errs, positive("crd-replay-max-objects", o.CRDReplayMaxObjects)...)
	errs = append(errs, positive("crd-replay-page-size", o.CRDReplayPageSize)...)
	errs = append(errs, positive("crd-replay-concurrency", o.CRDReplayConcurrency)...)
	errs = append(errs, positive("crd-replay-qps", o.CRDReplayQPS)...)
	errs = append(errs, positive("crd-replay-burst", o.CRDReplayBurst)...)
	errs = append(errs, positive("crd-replay-timeout", o.CRDReplayTimeout)...)
	return errs
}

// validateAudit checks the background audit's flags. It audits the
// cluster's GuardPolicies and writes their status, so it cannot run on
// policies from files.
func (o *Options) validateAudit() field.ErrorList {
	var errs field.ErrorList
	if !o.Audit {
		return errs
	}
	if len(o.Policies) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("audit"), true, "--audit audits the cluster's GuardPolicies; it cannot be used with --policies"))
	}
	errs = append(errs, positive("audit-interval", o.AuditInterval)...)
	errs = append(errs, positive("audit-qps", o.AuditQPS)...)
	errs = append(errs, positive("audit-page-size", o.AuditPageSize)...)
	return errs
}

// validateManagedRules checks --manage-webhook-rules and the lease: the
// webhook timeout must be below the lease duration whenever a replica is
// elected, so that the rules' writer, and the audit, keep their Lease
// through the longest request.
func (o *Options) validateManagedRules() field.ErrorList {
	var errs field.ErrorList
	if o.ManageWebhookRules && o.WebhookConfiguration == "" {
		errs = append(errs, field.Required(field.NewPath("webhook-configuration"), "--manage-webhook-rules needs the name of the configurations it keeps"))
	}
	if o.WebhookTimeout <= 0 || o.WebhookTimeout > 30*time.Second {
		errs = append(errs, field.Invalid(field.NewPath("webhook-timeout"), o.WebhookTimeout.String(), "must be between 1s and 30s, as timeoutSeconds is"))
	}
	if o.leaderElection() && o.WebhookTimeout >= o.LeaderElectionLeaseDuration {
		errs = append(errs, field.Invalid(field.NewPath("leader-election-lease-duration"), o.LeaderElectionLeaseDuration.String(), fmt.Sprintf("must be longer than --webhook-timeout %s", o.WebhookTimeout)))
	}
	return errs
}

// validatePolicyStatus checks --policy-status: the conditions describe
// the cluster's GuardPolicies, and Enforced needs to know which
// configurations send requests to /validate.
func (o *Options) validatePolicyStatus() field.ErrorList {
	if !o.PolicyStatus {
		return nil
	}
	var errs field.ErrorList
	if len(o.Policies) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("policy-status"), true, "--policy-status writes the status of the cluster's GuardPolicies; it cannot be used with --policies"))
	}
	if len(o.ValidatingConfigurations) == 0 && !o.ManageWebhookRules {
		errs = append(errs, field.Required(field.NewPath("validating-configurations"), "--policy-status needs the ValidatingWebhookConfigurations that send requests to /validate (or --manage-webhook-rules) to tell whether a policy is enforced"))
	}
	return errs
}

// leaderElection tells whether a replica is elected: for the background
// audit, the managed webhook rules and the GuardPolicy status.
func (o *Options) leaderElection() bool {
	return o.Audit || o.ManageWebhookRules || o.PolicyStatus
}
