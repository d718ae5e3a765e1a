package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ApproveAnnotation on an object asks for an exception:
// "<rule>[,<rule>...]: <reason>". It lifts the named rules' Deny findings
// in the request that writes it, when the requesting user is one of the
// policy's approvers; only approvers may write it.
const ApproveAnnotation = "crdguard.dev/approve"

// LastApprovalAnnotation is crdguard's record of the last approval it
// admitted: JSON with the approver, the rules, the reason, the time and
// the webhook's signature. crdguard's mutating webhook writes it; a record
// it did not write is denied, and an approval left on an object for a
// DELETE counts only with its signed record (see pkg/policies).
const LastApprovalAnnotation = "crdguard.dev/last-approval"

// GuardPolicy runs built-in rules on the requests it matches.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=gp,categories=crdguard
// +kubebuilder:printcolumn:name="Enforcement",type=string,JSONPath=`.spec.enforcement`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Violations",type=integer,JSONPath=`.status.audit.violations`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Enforced",type=string,JSONPath=`.status.conditions[?(@.type=="Enforced")].status`,priority=1
// +kubebuilder:printcolumn:name="Audited",type=date,JSONPath=`.status.audit.lastRunTime`,priority=1
// +kubebuilder:subresource:status
type GuardPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GuardPolicySpec `json:"spec"`

	// Status is written by crdguard, never by users.
	// +optional
	Status *GuardPolicyStatus `json:"status,omitempty"`
}

// GuardPolicyStatus is what crdguard observed about a GuardPolicy.
type GuardPolicyStatus struct {
	// Conditions are the webhook's view of the policy: Ready (compiled)
	// and Enforced (every kind it matches reaches crdguard). The elected
	// webhook replica writes them (--policy-status).
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Audit is the outcome of the last background audit (the webhook's
	// --audit) that evaluated the policy. Absent when none has.
	// +optional
	Audit *AuditStatus `json:"audit,omitempty"`
}

// The condition types of a GuardPolicy's status.
const (
	// ConditionReady is True when the webhook compiled the policy's
	// current generation; False, with the error by field path, when it
	// is invalid.
	ConditionReady = "Ready"
	// ConditionEnforced is True when every kind the policy matches
	// reaches crdguard: its webhook configuration sends the requests, or
	// compiled ValidatingAdmissionPolicies and their bindings match them.
	ConditionEnforced = "Enforced"
)

// AuditStatus is one background audit's outcome for one GuardPolicy.
type AuditStatus struct {
	// LastRunTime is when the audit finished.
	LastRunTime metav1.Time `json:"lastRunTime"`

	// Violations is the number of the policy's findings on stored
	// objects, one per object, rule and field; the reports
	// (openreports.io Report and ClusterReport) list them.
	// +kubebuilder:validation:Minimum=0
	Violations int64 `json:"violations"`
}

// GuardPolicyList is a list of GuardPolicies.
//
// +kubebuilder:object:root=true
type GuardPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GuardPolicy `json:"items"`
}

// GuardPolicySpec is what a GuardPolicy checks and how.
type GuardPolicySpec struct {
	// Match selects the requests the policy applies to.
	Match Match `json:"match"`

	// Enforcement of the rules that set none. Default: Deny.
	// +kubebuilder:default=Deny
	// +optional
	Enforcement Enforcement `json:"enforcement,omitempty"`

	// Approvers may lift this policy's Deny findings for one request with
	// the crdguard.dev/approve annotation. Default: nobody.
	// +optional
	Approvers *Approvers `json:"approvers,omitempty"`

	// Rules are the checks, each with a name unique in the policy.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Rules []Rule `json:"rules"`
}

// Enforcement says what a finding does to the request.
// +kubebuilder:validation:Enum=Deny;Warn;Audit
type Enforcement string

const (
	// Deny rejects the request.
	Deny Enforcement = "Deny"
	// Warn accepts the request and returns an admission warning.
	Warn Enforcement = "Warn"
	// Audit accepts the request and records an audit annotation.
	Audit Enforcement = "Audit"
)

// Operation is an admission operation.
// +kubebuilder:validation:Enum=CREATE;UPDATE;DELETE
type Operation string

const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// Match selects requests. All of its fields must match.
type Match struct {
	// Resources are the kinds the policy applies to; any one must match.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Resources []ResourceMatch `json:"resources"`

	// Operations the policy applies to. Default: CREATE, UPDATE and DELETE.
	// +listType=set
	// +kubebuilder:validation:MaxItems=3
	// +optional
	Operations []Operation `json:"operations,omitempty"`

	// NamespaceSelector matches the labels of the object's namespace.
	// Cluster-scoped objects match only an empty selector. Default: all.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// ObjectSelector matches the object's labels (the old object's on
	// DELETE). Default: all.
	// +optional
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty"`

	// ExcludedNamespaces are never matched.
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +optional
	ExcludedNamespaces []string `json:"excludedNamespaces,omitempty"`
}

// ResourceMatch names kinds of one API group.
type ResourceMatch struct {
	// Group is the API group; "" is the core group, "*" any group.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Group string `json:"group,omitempty"`

	// Versions of the group; "*" or none means every version.
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Versions []string `json:"versions,omitempty"`

	// Kinds, as in an object's "kind" field; "*" means every kind.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Kinds []string `json:"kinds"`
}

// Approvers are the identities allowed to approve exceptions.
type Approvers struct {
	// Users by name.
	// +listType=set
	// +optional
	Users []string `json:"users,omitempty"`
	// Groups by name; a user in any of them is an approver.
	// +listType=set
	// +optional
	Groups []string `json:"groups,omitempty"`
	// ServiceAccounts as "namespace/name".
	// +listType=set
	// +optional
	ServiceAccounts []string `json:"serviceAccounts,omitempty"`
}

// Rule is one named check. Exactly one of its rule fields is set.
// +kubebuilder:validation:XValidation:rule="[has(self.resources), has(self.imageVersion), has(self.transitions), has(self.deletion), has(self.cel), has(self.defaults), has(self.versionTable)].filter(x, x).size() == 1",message="exactly one of resources, imageVersion, transitions, deletion, cel, defaults and versionTable must be set"
type Rule struct {
	// Name identifies the rule in findings and approvals.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// Enforcement of this rule's findings. Default: the policy's.
	// +optional
	Enforcement Enforcement `json:"enforcement,omitempty"`

	// Resources checks requests, limits and their ratio.
	// +optional
	Resources *ResourcesRule `json:"resources,omitempty"`
	// ImageVersion checks that images agree with a version field.
	// +optional
	ImageVersion *ImageVersionRule `json:"imageVersion,omitempty"`
	// Transitions restrict how fields may change on UPDATE.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Transitions []FieldTransition `json:"transitions,omitempty"`
	// Deletion protects objects from DELETE.
	// +optional
	Deletion *DeletionRule `json:"deletion,omitempty"`
	// CEL is a custom rule.
	// +optional
	CEL *CELRule `json:"cel,omitempty"`
	// Defaults fills in missing values (mutating webhook, --show-patches).
	// +optional
	Defaults *DefaultsRule `json:"defaults,omitempty"`
	// VersionTable allows, for each version of one field, only the
	// versions listed for it at another.
	// +optional
	VersionTable *VersionTableRule `json:"versionTable,omitempty"`
}

// ResourcesPreset names a set of paths to ResourceRequirements.
// +kubebuilder:validation:Enum=Workloads
type ResourcesPreset string

// Workloads covers the containers and initContainers of Pods, Deployments,
// StatefulSets, DaemonSets, ReplicaSets, ReplicationControllers, Jobs and
// CronJobs.
const Workloads ResourcesPreset = "Workloads"

// ResourcesRule checks ResourceRequirements-shaped objects: maps "requests"
// and "limits" from resource name to quantity.
// +kubebuilder:validation:XValidation:rule="has(self.paths) || has(self.preset) || has(self.requireAnyOf)",message="paths, preset or requireAnyOf is required"
type ResourcesRule struct {
	// Paths to ResourceRequirements objects, like field paths; "[*]" stands
	// for every item of a list: "spec.template.spec.containers[*].resources".
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Paths []string `json:"paths,omitempty"`
	// Preset adds the paths of a known set of kinds.
	// +optional
	Preset ResourcesPreset `json:"preset,omitempty"`
	// RequireRequests lists resources every path must request, in the
	// sense RequireRequestsMode says.
	// +listType=set
	// +optional
	RequireRequests []string `json:"requireRequests,omitempty"`
	// RequireRequestsMode says what satisfies RequireRequests: Effective,
	// a request the container runs with (written, or the limit that
	// Kubernetes sets a missing request to); Written, a request written
	// out. Default: Effective.
	// +kubebuilder:default=Effective
	// +optional
	RequireRequestsMode RequestsMode `json:"requireRequestsMode,omitempty"`
	// RequireLimits lists resources every path must limit.
	// +listType=set
	// +optional
	RequireLimits []string `json:"requireLimits,omitempty"`
	// Ratios bound limit/request per resource, where both are set.
	// +listType=map
	// +listMapKey=resource
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Ratios []RatioBand `json:"ratios,omitempty"`
	// RequestBounds bound the request of each resource, where it is set:
	// the request written, else the limit (which Kubernetes sets a
	// missing request to).
	// +listType=map
	// +listMapKey=resource
	// +kubebuilder:validation:MaxItems=16
	// +optional
	RequestBounds []QuantityBound `json:"requestBounds,omitempty"`
	// LimitBounds bound the limit of each resource, where it is set.
	// +listType=map
	// +listMapKey=resource
	// +kubebuilder:validation:MaxItems=16
	// +optional
	LimitBounds []QuantityBound `json:"limitBounds,omitempty"`
	// ExcludeContainers are skipped by name (sidecars): at each path with
	// a "[*]", and in the preset, the items of the last "[*]" whose name
	// is listed. RequireAnyOf selects its containers itself.
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +optional
	ExcludeContainers []string `json:"excludeContainers,omitempty"`
	// RequireAnyOf requires that at least one of several places sets a
	// request or limit, such as a shorthand resources field or its
	// container's resources.
	// +kubebuilder:validation:MaxItems=8
	// +optional
	RequireAnyOf []ResourcesAnyOf `json:"requireAnyOf,omitempty"`
}

// RequestsMode says what satisfies requireRequests.
// +kubebuilder:validation:Enum=Effective;Written
type RequestsMode string

const (
	// EffectiveRequests: the request written, else the limit, which
	// Kubernetes sets a missing request to.
	EffectiveRequests RequestsMode = "Effective"
	// WrittenRequests: only a request written out; a limit alone does not
	// satisfy it (for VPA, which scales requests, and strict review).
	WrittenRequests RequestsMode = "Written"
)

// QuantityBound bounds one resource's quantity, both ends inclusive.
// +kubebuilder:validation:XValidation:rule="has(self.min) || has(self.max)",message="min or max is required"
type QuantityBound struct {
	// Resource name, like cpu or memory.
	Resource string `json:"resource"`
	// Min is the lowest allowed quantity, like 2Gi.
	// +optional
	Min *resource.Quantity `json:"min,omitempty"`
	// Max is the highest allowed quantity.
	// +optional
	Max *resource.Quantity `json:"max,omitempty"`
}

// ResourcesAnyOf requires that, for each resource it lists, at least one
// of its places sets it. Where the paths share a list prefix (the steps
// up to their last common "[*]", like spec.nodeSets[*]) it is required of
// every item of that list; else once per object.
// +kubebuilder:validation:XValidation:rule="has(self.limits) || has(self.requests)",message="limits or requests is required"
type ResourcesAnyOf struct {
	// Paths are the places, ResourceRequirements objects as in Paths.
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=8
	Paths []ResourcesPlace `json:"paths"`
	// Limits are the resources one of the places must limit.
	// +listType=set
	// +optional
	Limits []string `json:"limits,omitempty"`
	// Requests are the resources one of the places must request; a limit
	// counts, as Kubernetes sets a missing request to it.
	// +listType=set
	// +optional
	Requests []string `json:"requests,omitempty"`
}

// ResourcesPlace is one place of a ResourcesAnyOf.
type ResourcesPlace struct {
	// Path to ResourceRequirements, as in ResourcesRule.Paths.
	Path string `json:"path"`
	// ContainerName restricts the place to the item of the path's last
	// "[*]" with this name, as imageVersion's containerName selects one
	// container: spec.template.spec.containers[*].resources of the
	// container "elasticsearch". That "[*]" must follow the shared prefix.
	// +optional
	ContainerName string `json:"containerName,omitempty"`
}

// RatioBand bounds limit/request for one resource.
// +kubebuilder:validation:XValidation:rule="has(self.min) || has(self.max)",message="min or max is required"
type RatioBand struct {
	// Resource name, like cpu or memory.
	Resource string `json:"resource"`
	// Min is the lowest allowed ratio, inclusive unless MinExclusive.
	// +optional
	Min *resource.Quantity `json:"min,omitempty"`
	// MinExclusive excludes Min itself. Default: false (unset and false
	// mean the same).
	// +kubebuilder:default=false
	// +optional
	MinExclusive bool `json:"minExclusive,omitempty"`
	// Max is the highest allowed ratio, inclusive unless MaxExclusive.
	// +optional
	Max *resource.Quantity `json:"max,omitempty"`
	// MaxExclusive excludes Max itself. Default: false (unset and false
	// mean the same).
	// +kubebuilder:default=false
	// +optional
	MaxExclusive bool `json:"maxExclusive,omitempty"`
}

// VersionCompare says when an image tag agrees with a version.
// +kubebuilder:validation:Enum=Exact;Semver;TagPrefix
type VersionCompare string

const (
	// CompareExact: the tag equals the version.
	CompareExact VersionCompare = "Exact"
	// CompareSemver: equal as semantic versions ("v" prefix and build
	// metadata ignored).
	CompareSemver VersionCompare = "Semver"
	// CompareTagPrefix: the tag is the version, optionally followed by "-"
	// and a variant ("8.0.36-debian12" agrees with "8.0.36").
	CompareTagPrefix VersionCompare = "TagPrefix"
)

// ImageVersionRule checks that images carry the version an object declares,
// or, without VersionPath, that they carry a version in their tag.
// +kubebuilder:validation:XValidation:rule="has(self.imagePaths) || has(self.containersPath)",message="imagePaths or containersPath is required"
type ImageVersionRule struct {
	// VersionPath is the path of the declared version, like spec.version.
	// Without it, every image checked must carry a semantic version in its
	// tag (not "latest", not digest only) and nothing is compared; compare
	// must then be Semver and versionAbsent Deny.
	// +optional
	VersionPath string `json:"versionPath,omitempty"`
	// ImagePaths are paths of image references, like spec.image.
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +optional
	ImagePaths []string `json:"imagePaths,omitempty"`
	// ContainersPath is the path of a container list, like
	// spec.template.spec.containers; each item's image is checked.
	// +optional
	ContainersPath string `json:"containersPath,omitempty"`
	// ContainerName restricts the check to one container of the list.
	// +optional
	ContainerName string `json:"containerName,omitempty"`
	// ExcludeContainers are skipped by name (sidecars).
	// +listType=set
	// +optional
	ExcludeContainers []string `json:"excludeContainers,omitempty"`
	// TagPattern reads the version from a tag that holds more than the
	// version: a Go (RE2) regular expression with a group named
	// "version", matched against the whole tag, like
	// `^[0-9.]+-kafka-(?P<version>.+)$` for "1.2.0-kafka-4.1.0". Compare
	// then applies to the group. Default: the whole tag.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	TagPattern string `json:"tagPattern,omitempty"`
	// Compare says when a tag agrees with the version. Default: Semver.
	// +kubebuilder:default=Semver
	// +optional
	Compare VersionCompare `json:"compare,omitempty"`
	// DigestOnly is the enforcement for an image pinned by digest alone,
	// whose version cannot be read. Default: Deny.
	// +kubebuilder:validation:Enum=Deny;Warn
	// +kubebuilder:default=Deny
	// +optional
	DigestOnly Enforcement `json:"digestOnly,omitempty"`
	// VersionAbsent says what an object whose versionPath is not set
	// (missing, null or "") gets when it sets an image the rule checks:
	// Deny reports it at versionPath at the rule's enforcement, since the
	// operator then runs a default version that crdguard cannot know;
	// Allow accepts it, for a versionPath that objects may leave out.
	// Default: Deny.
	// +kubebuilder:default=Deny
	// +optional
	VersionAbsent VersionAbsent `json:"versionAbsent,omitempty"`
}

// VersionAbsent is what an imageVersion rule does with an object that
// sets an image but not the version to check it against.
// +kubebuilder:validation:Enum=Deny;Allow
type VersionAbsent string

const (
	// DenyVersionAbsent reports the missing version: the images cannot be
	// shown to agree with it.
	DenyVersionAbsent VersionAbsent = "Deny"
	// AllowVersionAbsent checks nothing when the version is not set.
	AllowVersionAbsent VersionAbsent = "Allow"
)

// TransitionCheck is a restriction on how a value may change.
// +kubebuilder:validation:Enum=Immutable;NoDecrease;NoIncrease;NoDowngrade;MaxMinorSkip;MaxMajorSkip;NoRemoval;UpgradePath
type TransitionCheck string

const (
	// Immutable: the value may not change once set.
	Immutable TransitionCheck = "Immutable"
	// NoDecrease: a number or quantity may not go down.
	NoDecrease TransitionCheck = "NoDecrease"
	// NoIncrease: a number or quantity may not go up.
	NoIncrease TransitionCheck = "NoIncrease"
	// NoDowngrade: a semantic version may not go down.
	NoDowngrade TransitionCheck = "NoDowngrade"
	// MaxMinorSkip: a semantic version may skip at most MaxMinorSkip minor
	// versions, and not change its major version unless MaxMajorSkip is
	// set: then an upgrade may skip at most MaxMajorSkip major versions,
	// and the minor versions of the new major version below the new one
	// count as skipped (3.9 to 4.0 skips none, to 4.2 two).
	MaxMinorSkip TransitionCheck = "MaxMinorSkip"
	// MaxMajorSkip: a semantic version may skip at most MaxMajorSkip major
	// versions (6.0 to 8.0 skips 7); minor versions are not restricted.
	MaxMajorSkip TransitionCheck = "MaxMajorSkip"
	// NoRemoval: list items (by key) and map keys may not be removed.
	NoRemoval TransitionCheck = "NoRemoval"
	// UpgradePath: a semantic version may go up only by a step that
	// UpgradePaths lists, or within its minor version (8.0.36 to
	// 8.0.39). Going down is NoDowngrade's business.
	UpgradePath TransitionCheck = "UpgradePath"
)

// FieldTransition restricts one field on UPDATE.
// +kubebuilder:validation:XValidation:rule="self.check != 'MaxMinorSkip' || has(self.maxMinorSkip)",message="maxMinorSkip is required for check MaxMinorSkip"
// +kubebuilder:validation:XValidation:rule="self.check != 'MaxMajorSkip' || has(self.maxMajorSkip)",message="maxMajorSkip is required for check MaxMajorSkip"
// +kubebuilder:validation:XValidation:rule="self.check != 'UpgradePath' || has(self.upgradePaths)",message="upgradePaths is required for check UpgradePath"
type FieldTransition struct {
	// Path of the field; "[*]" matches list items by Keys.
	Path string `json:"path"`
	// Check is the restriction.
	Check TransitionCheck `json:"check"`
	// MaxMinorSkip is the most minor versions one update may skip.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxMinorSkip *int32 `json:"maxMinorSkip,omitempty"`
	// MaxMajorSkip is the most major versions one update may skip: required
	// for check MaxMajorSkip; with check MaxMinorSkip it allows major
	// upgrades. Default (MaxMinorSkip): no major change.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxMajorSkip *int32 `json:"maxMajorSkip,omitempty"`
	// ImageTag says the field holds an image reference, like
	// ghcr.io/cloudnative-pg/postgresql:16.4, whose tag carries the
	// version that NoDowngrade, MaxMinorSkip and MaxMajorSkip compare.
	// +optional
	ImageTag *ImageTagVersion `json:"imageTag,omitempty"`
	// UpgradePaths are the steps an upgrade may take, for check
	// UpgradePath: from a version in From to a version in To, like
	// {from: "3.13.x", to: "4.0.x"}. Required for check UpgradePath.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	UpgradePaths []UpgradeStep `json:"upgradePaths,omitempty"`
	// Build says how NoDowngrade counts a vendor build suffix, the part
	// of the version after its first "-" (Percona's 8.0.39-30.1).
	// Default: a field's suffix is a semver pre-release, and an image
	// tag's is a variant that does not count.
	// +optional
	Build VersionBuild `json:"build,omitempty"`
	// Keys identify the items of the path's one list: its "[*]", or the
	// list NoRemoval checks. Each is a field path within an item: "name",
	// "metadata.name". A path through more than one list sets ListKeys
	// instead. Default: the list's x-kubernetes-list-map-keys in the CRD,
	// else "name".
	// +listType=set
	// +optional
	Keys []string `json:"keys,omitempty"`
	// MatchBy says how the items of the path's one list pair, as
	// ListKeys' matchBy does. Default: Key.
	// +optional
	MatchBy ListMatch `json:"matchBy,omitempty"`
	// ListKeys identify the items of each list of the path, outermost
	// first: one entry per "[*]", and for NoRemoval of a list one more for
	// that list. An entry without keys takes the default of Keys.
	// +kubebuilder:validation:MaxItems=8
	// +optional
	ListKeys []ListKeys `json:"listKeys,omitempty"`
	// DefaultVersion is the version an absent value means, the operator's
	// default (RabbitMQ's image when spec.image is not set), for checks
	// that compare versions: an object that used the default is then
	// protected on its next change, and removing the value is judged as
	// a change to the default.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	DefaultVersion string `json:"defaultVersion,omitempty"`
	// Alternatives are other places that hold the same version, for
	// objects that write it in one of several ways: CloudNativePG's
	// spec.imageName or spec.imageCatalogRef.major. The version is read
	// from the first of path and the alternatives that is set. Between
	// two places, versions compare to the precision both write: catalog
	// major 16 after image 16.4 is no change. Paths without "[*]", for
	// checks that compare versions.
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Alternatives []VersionPlace `json:"alternatives,omitempty"`
}

// VersionPlace is a place that holds a version.
type VersionPlace struct {
	// Path of the field, like spec.imageCatalogRef.major.
	Path string `json:"path"`
	// ImageTag says the field holds an image reference whose tag carries
	// the version, as FieldTransition.ImageTag.
	// +optional
	ImageTag *ImageTagVersion `json:"imageTag,omitempty"`
}

// VersionTableRule allows, for each version at VersionPath, only the
// versions its row lists at Path: Percona XtraDB's spec.crVersion 1.19.x
// runs spec.pxc.image 8.0.x or 8.4.x. A version pattern is one to three
// numbers, optionally ending in ".x": "1.19.x" and "1.19" match 1.19.0
// and 1.19.2 (not "1", which names no minor version), "8.0.39" only
// 8.0.39 (with any pre-release or build).
type VersionTableRule struct {
	// VersionPath is the path of the version that picks a row, like
	// spec.crVersion.
	VersionPath string `json:"versionPath"`
	// DefaultVersion is the version an absent VersionPath means, the
	// operator's default. Default: none, and an object that sets Path
	// without VersionPath is a finding at VersionPath.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	DefaultVersion string `json:"defaultVersion,omitempty"`
	// Path is the path of the version the rows allow, like spec.pxc.image.
	Path string `json:"path"`
	// ImageTag says Path holds an image reference whose tag carries the
	// version, as FieldTransition.ImageTag.
	// +optional
	ImageTag *ImageTagVersion `json:"imageTag,omitempty"`
	// Rows map versions at VersionPath to the versions allowed at Path;
	// the first row whose version matches decides.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Rows []VersionTableRow `json:"rows"`
	// Unlisted is what an object whose version no row matches gets: Deny
	// (a finding at VersionPath) or Allow. Default: Deny.
	// +kubebuilder:default=Deny
	// +optional
	Unlisted UnlistedVersion `json:"unlisted,omitempty"`
}

// UnlistedVersion is what a versionTable rule does with a version that
// no row matches.
// +kubebuilder:validation:Enum=Deny;Allow
type UnlistedVersion string

const (
	// DenyUnlisted reports the version: the table does not say what it
	// allows, and a pass would fail open.
	DenyUnlisted UnlistedVersion = "Deny"
	// AllowUnlisted checks nothing for it.
	AllowUnlisted UnlistedVersion = "Allow"
)

// VersionTableRow is one row of a version table.
type VersionTableRow struct {
	// Version is the pattern of the versions at VersionPath this row is
	// for, like 1.19.x.
	// +kubebuilder:validation:MaxLength=64
	Version string `json:"version"`
	// Allowed are the patterns of the versions allowed at Path, like
	// 8.0.x and 8.4.x.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Allowed []string `json:"allowed"`
}

// ImageTagVersion reads a version from an image reference's tag. The
// reference is parsed as the container runtime reads it: a registry's
// port is no tag, a digest after the tag is ignored, and a reference
// without a tag ("latest") or pinned by digest alone has no version.
type ImageTagVersion struct {
	// TagPattern is a Go (RE2) regular expression with a group named
	// "version", matched against the whole tag, like
	// `^[0-9.]+-kafka-(?P<version>.+)$` for "1.2.0-kafka-4.1.0". Default:
	// the tag up to its first "-" ("16.4-bookworm" is 16.4), with a "v"
	// prefix allowed and "_" standing for "+".
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	TagPattern string `json:"tagPattern,omitempty"`
}

// UpgradeStep is one allowed step of an upgrade path. From and To are
// version ranges: "3.13" or "3.13.x" is every 3.13 version, "4" or "4.x"
// every 4 version, "8.0.39" that version alone, and "3.10 - 3.13" (a
// space on each side of the "-") every version from 3.10 through 3.13.
type UpgradeStep struct {
	// From is the range of versions the step starts from.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	From string `json:"from"`
	// To is the range of versions the step leads to.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	To string `json:"to"`
}

// VersionBuild says how a vendor build suffix counts.
// +kubebuilder:validation:Enum=Ordered
type VersionBuild string

const (
	// BuildOrdered: the part after the version's first "-" is a vendor
	// build, numbers separated by dots, ordered as numbers: 8.0.39-30.1
	// is older than 8.0.39-30.2, and 30 older than 30.1.
	BuildOrdered VersionBuild = "Ordered"
)

// ListKeys identify the items of one list of a transition's path.
type ListKeys struct {
	// Keys are field paths within an item, as FieldTransition.Keys.
	// +listType=set
	// +optional
	Keys []string `json:"keys,omitempty"`
	// MatchBy says how old and new items pair. Default: Key.
	// +optional
	MatchBy ListMatch `json:"matchBy,omitempty"`
}

// ListMatch says how the items of an old and a new list pair.
// +kubebuilder:validation:Enum=Key;Index
type ListMatch string

const (
	// MatchByKey pairs items with equal keys. An object item without its
	// keys is a finding: it is never paired by position instead.
	MatchByKey ListMatch = "Key"
	// MatchByIndex pairs items by position, for lists whose items nothing
	// identifies; an item beyond the other list's end has no pair.
	MatchByIndex ListMatch = "Index"
)

// DeletionRule protects objects from DELETE.
type DeletionRule struct {
	// Condition is a CEL expression over "object" (the object being
	// deleted); deletion is denied only when it is true. Default: always.
	// +optional
	Condition string `json:"condition,omitempty"`
	// Message explains the denial.
	// +optional
	Message string `json:"message,omitempty"`
}

// CELRule is a custom check in the Kubernetes CEL environment, with
// "object", "oldObject" (null unless UPDATE or DELETE) and "request"
// (operation, userInfo, namespace, name).
type CELRule struct {
	// Expression must evaluate to true for the request to pass.
	Expression string `json:"expression"`
	// Message explains a failure.
	// +optional
	Message string `json:"message,omitempty"`
	// MessageExpression computes the message; it wins over Message.
	// +optional
	MessageExpression string `json:"messageExpression,omitempty"`
	// FieldPath is where findings are reported, like spec.replicas.
	// Default: the object.
	// +optional
	FieldPath string `json:"fieldPath,omitempty"`
}

// DefaultsRule fills in what is missing.
// +kubebuilder:validation:XValidation:rule="has(self.paths) || has(self.preset)",message="paths or preset is required"
type DefaultsRule struct {
	// Paths to ResourceRequirements objects, as in ResourcesRule.
	// +listType=set
	// +optional
	Paths []string `json:"paths,omitempty"`
	// Preset adds the paths of a known set of kinds.
	// +optional
	Preset ResourcesPreset `json:"preset,omitempty"`
	// Limits fills a missing limit from the request.
	// +listType=map
	// +listMapKey=resource
	// +kubebuilder:validation:MinItems=1
	Limits []LimitDefault `json:"limits"`
}

// LimitDefault sets limits[resource] = requests[resource] × RequestMultiplier
// where the limit is missing and the request is set.
type LimitDefault struct {
	Resource          string            `json:"resource"`
	RequestMultiplier resource.Quantity `json:"requestMultiplier"`
}
