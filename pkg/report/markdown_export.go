package report

// MarkdownText escapes s for a markdown table cell, as every markdown
// report does, for commands that lay out their own markdown (crdguard
// diff).
func MarkdownText(s string) string { return markdownText(s) }

// MarkdownCode renders s as inline code in a table cell.
func MarkdownCode(s string) string { return markdownCode(s) }
