package postgres

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTextArray(t *testing.T) {
	t.Parallel()
	require.Equal(t, "{}", textArray(nil))
	require.Equal(t, `{"dlv_1","+12025550100"}`, textArray([]string{"dlv_1", "+12025550100"}))
	require.Equal(t, `{"a,b","say \"hi\"","back\\slash",""}`, textArray([]string{"a,b", `say "hi"`, `back\slash`, ""}))
}
