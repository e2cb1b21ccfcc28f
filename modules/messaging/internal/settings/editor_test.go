package settings

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
)

type memHelp struct{ text map[string]string }

func (m memHelp) Settings(_ context.Context, teamID string) (*inbound.Settings, error) {
	if t, ok := m.text[teamID]; ok {
		return &inbound.Settings{HelpText: t}, nil
	}
	return &inbound.Settings{HelpText: "default", HelpTextDefault: true}, nil
}

var errTooLong = errors.New("help_text too long")

func (m memHelp) SetHelpText(ctx context.Context, teamID string, text *string) (*inbound.Settings, error) {
	if text != nil {
		if len(*text) > 20 {
			return nil, errTooLong
		}
		m.text[teamID] = *text
	}
	return m.Settings(ctx, teamID)
}

// countTx counts transactions and keeps whether the last one failed, as a
// rolled-back transaction would leave its writes.
type countTx struct{ runs, failed int }

func (c *countTx) Tx(ctx context.Context, fn func(context.Context) error) error {
	c.runs++
	err := fn(ctx)
	if err != nil {
		c.failed++
	}
	return err
}

// Change applies every field given in one transaction and answers the
// settings as they then are; a refused field fails the whole transaction.
func TestEditorChangesTheFieldsGivenInOneTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t, false)
	help, tx := memHelp{text: map[string]string{}}, &countTx{}
	e := NewEditor(tx, s, help)

	str := func(v string) *string { return &v }
	on := true
	a, err := e.Change(ctx, "team_1", Patch{HelpText: str("Tigers texts"), QuietHours: &QuietHoursPatch{Start: str("21:00")}, CarrierFailover: &on})
	require.NoError(t, err)
	require.Equal(t, "Tigers texts", a.Help.HelpText)
	require.Equal(t, 21*60, int(a.Quiet.Start))
	require.True(t, a.CarrierFailover)
	require.Equal(t, 1, tx.runs)

	got, err := e.All(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, a, got, "All reads what Change answered")

	_, err = e.Change(ctx, "team_1", Patch{HelpText: str("a HELP answer far too long"), QuietHours: &QuietHoursPatch{Start: str("22:00")}})
	require.ErrorIs(t, err, errTooLong)
	require.Equal(t, 2, tx.runs)
	require.Equal(t, 1, tx.failed, "the refusal fails the transaction the quiet hours were written in")

	_, err = e.Change(ctx, "team_1", Patch{QuietHours: &QuietHoursPatch{Start: str("25:00")}})
	require.Error(t, err)
	require.Equal(t, 2, tx.failed)
}
