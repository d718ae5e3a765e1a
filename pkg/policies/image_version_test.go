package policies

import (
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestImageVersion(t *testing.T) { runCases(t, "imageVersion") }

// notContainerName is the message of a name that is not a DNS-1123 label.
const notContainerName = "is not a container name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"

// TestImageVersionCompileErrors checks that a misconfigured rule rejects
// the policy, every mistake at its exact field.
func TestImageVersionCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  v1alpha1.ImageVersionRule
		want []string
	}{{
		name: "valid, defaults left out",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.version", ContainersPath: "spec.template.spec.containers", ContainerName: "mysql", ExcludeContainers: []string{"exporter"}},
	}, {
		name: "bad paths",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec..version", ImagePaths: []string{"spec.image", "spec.images[", "spec.sidecars[*].image"}, ContainersPath: "spec.containers."},
		want: []string{
			`spec.rules[0].imageVersion.versionPath: Invalid value: "spec..version": empty field name at ".version"`,
			`spec.rules[0].imageVersion.imagePaths[1]: Invalid value: "spec.images[": unclosed [ in "spec.images["`,
			`spec.rules[0].imageVersion.containersPath: Invalid value: "spec.containers.": trailing . in "spec.containers."`,
		},
	}, {
		name: "version path with a wildcard",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.members[*].version", ImagePaths: []string{"spec.image"}},
		want: []string{`spec.rules[0].imageVersion.versionPath: Invalid value: "spec.members[*].version": must name one value; [*] is not allowed`},
	}, {
		name: "no images",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.version"},
		want: []string{`spec.rules[0].imageVersion.imagePaths: Required value: imagePaths or containersPath is required`},
	}, {
		name: "valid without versionPath",
		cfg:  v1alpha1.ImageVersionRule{ImagePaths: []string{"spec.imageName"}, TagPattern: `(?P<version>[0-9.]+)-.*`},
	}, {
		name: "no versionPath and no images",
		cfg:  v1alpha1.ImageVersionRule{},
		want: []string{`spec.rules[0].imageVersion.imagePaths: Required value: imagePaths or containersPath is required`},
	}, {
		name: "a comparison without versionPath",
		cfg:  v1alpha1.ImageVersionRule{ImagePaths: []string{"spec.imageName"}, Compare: v1alpha1.CompareTagPrefix, VersionAbsent: v1alpha1.AllowVersionAbsent},
		want: []string{
			`spec.rules[0].imageVersion.compare: Forbidden: TagPrefix compares a tag with versionPath, which is not set; without versionPath a tag must be a semantic version (compare: Semver)`,
			`spec.rules[0].imageVersion.versionAbsent: Forbidden: may only be set with versionPath`,
		},
	}, {
		name: "container selection without containers",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.version", ImagePaths: []string{"spec.image"}, ContainerName: "mysql", ExcludeContainers: []string{"exporter"}},
		want: []string{
			`spec.rules[0].imageVersion.containerName: Forbidden: may only be set with containersPath`,
			`spec.rules[0].imageVersion.excludeContainers: Forbidden: may only be set with containersPath`,
		},
	}, {
		// As resources.excludeContainers: a name no container can have
		// would select or skip nothing.
		name: "bad container names",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.version", ContainersPath: "spec.containers", ContainerName: "Side_Car", ExcludeContainers: []string{"Exporter", "file_beat", "ok", "ok"}},
		want: []string{
			`spec.rules[0].imageVersion.containerName: Invalid value: "Side_Car": ` + notContainerName,
			`spec.rules[0].imageVersion.excludeContainers[0]: Invalid value: "Exporter": ` + notContainerName,
			`spec.rules[0].imageVersion.excludeContainers[1]: Invalid value: "file_beat": ` + notContainerName,
			`spec.rules[0].imageVersion.excludeContainers[3]: Duplicate value: "ok"`,
		},
	}, {
		name: "bad container names without containers",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.version", ImagePaths: []string{"spec.image"}, ContainerName: "Side_Car", ExcludeContainers: []string{"side-car_"}},
		want: []string{
			`spec.rules[0].imageVersion.containerName: Invalid value: "Side_Car": ` + notContainerName,
			`spec.rules[0].imageVersion.excludeContainers[0]: Invalid value: "side-car_": ` + notContainerName,
			`spec.rules[0].imageVersion.containerName: Forbidden: may only be set with containersPath`,
			`spec.rules[0].imageVersion.excludeContainers: Forbidden: may only be set with containersPath`,
		},
	}, {
		name: "the selected container excluded",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.version", ContainersPath: "spec.containers", ContainerName: "mysql", ExcludeContainers: []string{"exporter", "mysql"}},
		want: []string{`spec.rules[0].imageVersion.excludeContainers[1]: Invalid value: "mysql": excludes the container that containerName selects`},
	}, {
		name: "a valid tag pattern",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.kafka.version", ImagePaths: []string{"spec.kafka.image"}, TagPattern: `[0-9.]+-kafka-(?P<version>.+)`},
	}, {
		name: "a tag pattern that does not compile",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.kafka.version", ImagePaths: []string{"spec.kafka.image"}, TagPattern: `(?P<version>.+`},
		want: []string{"spec.rules[0].imageVersion.tagPattern: Invalid value: \"(?P<version>.+\": is not a valid regular expression (Go RE2 syntax): error parsing regexp: missing closing ): `(?P<version>.+`"},
	}, {
		name: "a tag pattern without a version group",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.kafka.version", ImagePaths: []string{"spec.kafka.image"}, TagPattern: `[0-9.]+-kafka-(?P<kafka>.+)`},
		want: []string{`spec.rules[0].imageVersion.tagPattern: Invalid value: "[0-9.]+-kafka-(?P<kafka>.+)": has no group named "version", like (?P<version>[0-9.]+), which holds the version`},
	}, {
		name: "unknown compare and digestOnly",
		cfg:  v1alpha1.ImageVersionRule{VersionPath: "spec.version", ImagePaths: []string{"spec.image"}, Compare: "Prefix", DigestOnly: v1alpha1.Audit},
		want: []string{
			`spec.rules[0].imageVersion.compare: Unsupported value: "Prefix": supported values: "Exact", "Semver", "TagPrefix"`,
			`spec.rules[0].imageVersion.digestOnly: Unsupported value: "Audit": supported values: "Deny", "Warn"`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			assertPolicyErrors(t, mysqlPolicy(v1alpha1.Rule{Name: "images", ImageVersion: &cfg}), nil, tt.want)
		})
	}
}
