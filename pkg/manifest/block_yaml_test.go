package manifest

import (
	"reflect"
	"strings"
	"testing"
)

// TestBlockYAMLDecodes: the block YAML kubectl writes takes the fast
// path, which gives exactly the general decoder's value.
func TestBlockYAMLDecodes(t *testing.T) {
	cases := map[string]string{
		"kubectl object": `apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "3"
  creationTimestamp: null
  labels:
    app.kubernetes.io/name: web
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  strategy: {}
  template:
    spec:
      containers:
      - args:
        - --leader-elect
        - -v=2
        env:
        - name: EMPTY
        - name: URL
          value: http://example.com:8080/a#b
        image: registry.example.com/web:1.2.3
        name: web
        ports:
        - containerPort: 8080
          protocol: TCP
        resources: {}
      tolerations: []
status: {}
`,
		"sequences indented under their key": "a:\n  - x\n  -   w: 1\n      z: -1\n  -\n    k: v\n  -\nb: 0\n",
		"sequences of sequences":             "a:\n-\n  - 1\n  - 2\n- []\n",
		"YAML 1.1 words": "t1: yes\nt2: Yes\nt3: YES\nt4: on\nt5: On\nt6: y\nt7: Y\nt8: true\nt9: TRUE\n" +
			"f1: no\nf2: off\nf3: n\nf4: N\nf5: False\n" +
			"z1: ~\nz2: null\nz3: NULL\nz4:\nz5: # a comment\n" +
			"s1: yEs\ns2: nil\ns3: none\ns4: o\n",
		"integers and what only looks like one": "i1: 0\ni2: -0\ni3: 42\ni4: -17\ni5: 9223372036854775807\ni6: -9223372036854775808\n" +
			"s1: 1.2.3\ns2: 0.0.0.0\ns3: 12:30\ns4: 1-2\ns5: 100Mi\ns6: 8Gi\ns7: 0x\ns8: -\"a\"\ns10: 1e\ns11: ...x\ns12: .a\n",
		"quoted scalars":                       "a: \"1\"\nb: 'true'\nc: \"x: y # z\"\nd: ''\ne: \"\" # comment\n'f g': \"h\"\n\"i\": 'j'\n",
		"comments everywhere":                  "# head\na: 1 # one\n   # odd\nb:   # empty\n# at zero\n  c: d#e\n\n",
		"plain scalars with indicators inside": "a: b,c]\nd: e{f}\ng: h&i *j !k |l >m\nm: o'p\"\nq: -r\n-u: v\n",
		"unicode":                              "a: ünïcødé ✓ 😀\nb: \"日本\"\n",
		"root indented":                        "  a: 1\n  b:\n  - c\n",
		"root sequence":                        "- a: 1\n  b: 2\n- c\n",
		"key forms":                            "a.b/c-d_e: 1\nhttp://x: 2\n\"quoted key\": 3\nk:v: 4\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := decodeBlockYAML([]byte(in))
			if !ok {
				t.Fatalf("the fast path left to the general decoder:\n%s", in)
			}
			want, err := decodeYAMLGeneral([]byte(in))
			if err != nil {
				t.Fatalf("the general decoder refuses what the fast path decodes: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("fast path\n%#v\ngeneral decoder\n%#v", got, want)
			}
		})
	}
}

// TestBlockYAMLFallsBack: each construct the fast path is not sure of is
// left to the general decoder, whether that decodes it or refuses it.
func TestBlockYAMLFallsBack(t *testing.T) {
	cases := map[string]string{
		"anchor and alias":                   "a: &x 1\nb: *x\n",
		"alias of an unknown anchor":         "b: *x\n",
		"anchor on a collection":             "a: &x\n  b: 1\n",
		"tag":                                "a: !!str 1\n",
		"local tag":                          "a: !thing 1\n",
		"flow mapping":                       "a: {b: 1}\n",
		"flow sequence":                      "a: [1, 2]\n",
		"flow sequence item":                 "a:\n- [1]\n",
		"JSON":                               `{"apiVersion": "v1", "kind": "K"}`,
		"float":                              "a: 1.5\n",
		"float that JSON makes an int":       "a: 8.0\n",
		"exponent":                           "a: 1e3\n",
		"leading dot float":                  "a: .5\n",
		"infinity":                           "a: .inf\n",
		"not a number":                       "a: .NaN\n",
		"negative infinity":                  "a: -.inf\n",
		"octal":                              "a: 010\n",
		"octal 0o":                           "a: 0o10\n",
		"hexadecimal":                        "a: 0x1F\n",
		"binary":                             "a: 0b101\n",
		"underscore separators":              "a: 1_000\n",
		"plus sign":                          "a: +1\n",
		"integer overflow":                   "a: 9223372036854775808\n",
		"timestamp":                          "a: 2024-01-02\n",
		"what starts like a timestamp":       "a: 2024-1\n",
		"question mark start":                "a: ?b\n",
		"duplicate key":                      "a: 1\na: 2\n",
		"duplicate key quoted":               "a: 1\n\"a\": 2\n",
		"tab in a value":                     "a:\tb\n",
		"tab indentation":                    "a:\n\tb: 1\n",
		"merge key":                          "a:\n  <<:\n    b: 1\n",
		"document marker inside":             "a: 1\n---\nb: 2\n",
		"document end inside":                "a: 1\n...\n",
		"directive":                          "%YAML 1.1\n---\na: 1\n",
		"complex key":                        "? a\n: b\n",
		"boolean key":                        "yes: 1\n",
		"one-letter boolean key":             "y: 1\n",
		"integer key":                        "1: a\n",
		"null key":                           "~: a\n",
		"space before colon":                 "a : 1\n",
		"mapping value in a value":           "a: b: c\n",
		"value ending in a colon":            "a: b:\n",
		"sequence among keys":                "a: 1\n- b\n",
		"sequence of sequences compact":      "- - a\n",
		"odd indentation":                    "a:\n    b: 1\n  c: 2\n",
		"sequence entry as a value":          "a: - b\n",
		"carriage return":                    "a: 1\r\nb: 2\r\n",
		"byte order mark":                    "\ufeffa: 1\n",
		"next line":                          "a: b\u0085c\n",
		"line separator":                     "a: b\u2028c\n",
		"control character":                  "a: b\x01c\n",
		"invalid UTF-8":                      "a: b\xffc\n",
		"quote after a scalar":               "a: \"b\"c\n",
		"comment without a space":            "a: \"b\"#c\n",
		"key with a comment":                 "a #b: c\n",
		"reserved indicator":                 "a: @b\n",
		"root scalar":                        "a\n",
		"empty":                              "# only a comment\n",
		"continuation that looks like a key": "a: b\n  c: d\n",
		"continuation ending in a colon":     "a: b\n  c:\n",
		"continuation after a comment":       "a: b # x\n  c\n",
		"continuation after a comment line":  "a: b\n  # x\n  c\n",
		"continuation after a comment at its end":      "a: b\n  c # x\n  d\n",
		"timestamp after folding":                      "a: 2001-12-14\n  21:59:43.10\n",
		"multi-line key":                               "a\n  b: c\n",
		"unknown escape":                               "a: \"x\\qy\"\n",
		"escaped slash, unknown to YAML 1.1":           "a: \"x\\/y\"\n",
		"escaped surrogate":                            "a: \"x\\ud800\"\n",
		"escape too short":                             "a: \"x\\x4\"\n",
		"escape beyond Unicode":                        "a: \"x\\U00110000\"\n",
		"backslash at the end":                         "a: \"x\\",
		"escaped line break":                           "a: \"b\\\n  c\"\n",
		"quoted continuation not indented":             "a: 'b\nc'\n",
		"multi-line quoted key":                        "a: 'b\n  c': d\n",
		"quote never closed":                           "a: 'b\n  c\n",
		"text after a closing quote":                   "a: 'b\n  c'd\n",
		"empty block scalar":                           "a: |\nb: 1\n",
		"empty block scalar at the end":                "a: >-\n",
		"block scalar of spaces at the end":            "a: |\n   ",
		"indentation indicator 0":                      "a: |0\n  x\n",
		"two indentation indicators":                   "a: |12\n  x\n",
		"two chomping indicators":                      "a: |-+\n  x\n",
		"text after a block scalar header":             "a: |x\n  x\n",
		"comment without a space after a header":       "a: |#c\n  x\n",
		"empty line wider than a block scalar's first": "a: |\n     \n  x\n",
		"block scalar not indented":                    "a:\n  b: |\n  x\n",
		"more indented line after a block scalar":      "a: |\n    x\n  y\n",
		"block scalar as a key":                        "|\n  x\n: y\n",
		"too deep":                                     deepMapping(maxBlockDepth + 1),
		"too long a key":                               strings.Repeat("k", maxKeyBytes+1) + ": v\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if v, ok := decodeBlockYAML([]byte(in)); ok {
				t.Fatalf("the fast path decoded %q to %#v", in, v)
			}
		})
	}
}

// deepMapping nests depth mappings.
func deepMapping(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	b.WriteString(strings.Repeat(" ", depth) + "k: v\n")
	return b.String()
}
