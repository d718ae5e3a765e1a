package diff

import "testing"

func TestFormatChangeTheServerDoesNotCheck(t *testing.T) {
	changes, err := Compare(withSpec(t, `{type: integer, format: int64}`), withSpec(t, `{type: integer, format: int32}`))
	if err != nil {
		t.Fatal(err)
	}
	const want = "the API server does not check values against this format, so nothing stored is rejected; clients generated from the schema may read the field differently"
	if len(changes) != 1 || changes[0].Path != specPath+".format" || changes[0].Message != want {
		t.Errorf("changes %q, want one at %s saying %q", summary(changes), specPath+".format", want)
	}
}
