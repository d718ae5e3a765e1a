package policies

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ApprovalRecord is the value of v1alpha1.LastApprovalAnnotation.
type ApprovalRecord struct {
	User   string   `json:"user"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason"`
	Time   string   `json:"time"`
	// Sig is the record's signature with the webhook's ApprovalKey, bound
	// to the object; absent when the webhook has no key.
	Sig string `json:"sig,omitempty"`
}

// MinApprovalKeySize is the shortest ApprovalKey, in bytes: as long as the
// HMAC-SHA256 it keys, so that the key is not the weaker half.
const MinApprovalKeySize = 32

// ApprovalKey signs the approval records /mutate writes and verifies them
// where they count. Every replica of the webhook reads the same one (a
// Secret), so restarts and replicas agree; whoever lacks it cannot forge a
// record, nor verify one.
type ApprovalKey struct{ secret []byte }

// NewApprovalKey keys records with secret, surrounding whitespace (a
// file's final newline) ignored. It must hold MinApprovalKeySize bytes.
func NewApprovalKey(secret []byte) (*ApprovalKey, error) {
	secret = bytes.TrimSpace(secret)
	if len(secret) < MinApprovalKeySize {
		return nil, fmt.Errorf("an approval key needs at least %d bytes, found %d", MinApprovalKeySize, len(secret))
	}
	return &ApprovalKey{secret: bytes.Clone(secret)}, nil
}

// signedRecord is what a signature covers: the record, and the object it
// is on, so that a record copied to another object counts for nothing.
// The version is left out: the same object is served at every version.
type signedRecord struct {
	Group     string   `json:"group"`
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	User      string   `json:"user"`
	Rules     []string `json:"rules"`
	Reason    string   `json:"reason"`
	Time      string   `json:"time"`
}

// recordSignatureDomain keeps a record's signature from meaning anything
// else the same key could sign.
const recordSignatureDomain = "crdguard.dev/last-approval v1\n"

func (k *ApprovalKey) sign(r ApprovalRecord, obj *unstructured.Unstructured, namespace string) []byte {
	gvk := obj.GroupVersionKind()
	mac := hmac.New(sha256.New, k.secret)
	mac.Write([]byte(recordSignatureDomain))
	// Encoding a struct of strings cannot fail, and the hash never does.
	_ = json.NewEncoder(mac).Encode(signedRecord{
		Group: gvk.Group, Kind: gvk.Kind, Namespace: namespace, Name: obj.GetName(),
		User: r.User, Rules: r.Rules, Reason: r.Reason, Time: r.Time,
	})
	return mac.Sum(nil)
}

// verifies tells whether r carries k's signature for the object.
func (k *ApprovalKey) verifies(r ApprovalRecord, obj *unstructured.Unstructured, namespace string) bool {
	sig, err := base64.RawURLEncoding.DecodeString(r.Sig)
	return err == nil && hmac.Equal(sig, k.sign(r, obj, namespace))
}

// FormatApprovalRecord is the record /mutate writes of the approval a,
// which req wrote: signed with req.ApprovalKey for req's object, unsigned
// when req has no key.
func FormatApprovalRecord(req *Request, a *Approval, now time.Time) (string, error) {
	if req.Object == nil {
		return "", errors.New("an approval record needs the object it is written on")
	}
	r := ApprovalRecord{User: a.User, Rules: a.Rules, Reason: a.Reason, Time: now.UTC().Format(time.RFC3339)}
	if req.ApprovalKey != nil {
		r.Sig = base64.RawURLEncoding.EncodeToString(req.ApprovalKey.sign(r, req.Object, req.Namespace))
	}
	value, err := json.Marshal(r)
	return string(value), err
}

// ParseApprovalRecord reads a record. One without a user, a rule or a
// reason records no approval.
func ParseApprovalRecord(value string) (ApprovalRecord, error) {
	var r ApprovalRecord
	if err := json.Unmarshal([]byte(value), &r); err != nil {
		return ApprovalRecord{}, err
	}
	if r.User == "" || len(r.Rules) == 0 || r.Reason == "" {
		return ApprovalRecord{}, errors.New("it names no user, rule or reason")
	}
	return r, nil
}
