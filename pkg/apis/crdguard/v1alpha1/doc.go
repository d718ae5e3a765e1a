// Package v1alpha1 holds the GuardPolicy API: which requests a policy
// matches, which built-in rules it runs on them, how findings are enforced
// and who may approve an exception.
//
// +kubebuilder:object:generate=true
// +groupName=crdguard.dev
package v1alpha1
