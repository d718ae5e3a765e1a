package gotypes

// Packages of the Kubernetes types whose JSON form is known. Each one has a
// MarshalJSON method, so without this table it would be opaque.
const (
	metav1Pkg       = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePkg     = "k8s.io/apimachinery/pkg/api/resource"
	intstrPkg       = "k8s.io/apimachinery/pkg/util/intstr"
	runtimePkg      = "k8s.io/apimachinery/pkg/runtime"
	unstructuredPkg = "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apiextv1Pkg     = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// knownType is a type whose custom MarshalJSON is part of the Kubernetes API
// conventions, so its wire form is documented rather than guessed.
type knownType struct {
	wire   WireType
	format string
	// zeroNull: the zero value is written as null, which the server drops.
	zeroNull bool
}

// knownTypes maps "package.Name" to its wire form. The same table drives the
// runtime filler (fill.go), so static and runtime proofs use one definition.
var knownTypes = map[string]knownType{
	metav1Pkg + ".Time":      {WireString, "date-time", true},
	metav1Pkg + ".MicroTime": {WireString, "date-time", true},
	metav1Pkg + ".Duration":  {WireString, "duration", false},
	// A Quantity is always written as a string ("1Gi"), although it reads
	// numbers too; a schema of type number rejects what it writes.
	resourcePkg + ".Quantity":         {WireString, "quantity", false},
	intstrPkg + ".IntOrString":        {WireIntOrString, "", false},
	runtimePkg + ".RawExtension":      {WireAny, "", true},
	apiextv1Pkg + ".JSON":             {WireAny, "", true},
	unstructuredPkg + ".Unstructured": {WireAny, "", true},
}

// Root-level fields that the API server owns: TypeMeta's apiVersion and kind
// and ObjectMeta's metadata are decoded and validated by the server itself,
// whatever the CRD's schema says about them.
var implicitRootFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}
