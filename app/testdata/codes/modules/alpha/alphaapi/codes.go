package alphaapi

// Error codes owned by alpha.
const (
	CodeWidgetLimit  = "widget_limit"
	CodeWidgetExists = "widget_exists"
)
