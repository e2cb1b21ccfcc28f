package settings

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
)

// HelpTexts keeps a team's HELP answer (inbound.Replies).
type HelpTexts interface {
	Settings(ctx context.Context, teamID string) (*inbound.Settings, error)
	SetHelpText(ctx context.Context, teamID string, text *string) (*inbound.Settings, error)
}

// All is a team's messaging settings as the admin API shows them: the
// HELP answer, quiet hours and carrier failover.
type All struct {
	Help            *inbound.Settings
	Quiet           Quiet
	CarrierFailover bool
}

// Patch changes any of a team's messaging settings; nil leaves one as it
// is. HelpText's empty string restores the default answer.
type Patch struct {
	HelpText        *string
	QuietHours      *QuietHoursPatch
	CarrierFailover *bool
}

// Editor reads and changes all of a team's messaging settings at once. It
// is apart from Service because the HELP answer is inbound's, and
// inbound's replies depend (through the hand-over) on Service.
type Editor struct {
	tx       Transactor
	settings *Service
	help     HelpTexts
}

// NewEditor returns the editor.
func NewEditor(tx Transactor, s *Service, help HelpTexts) *Editor {
	return &Editor{tx: tx, settings: s, help: help}
}

// All returns a team's messaging settings.
func (e *Editor) All(ctx context.Context, teamID string) (All, error) {
	var a All
	var err error
	if a.Help, err = e.help.Settings(ctx, teamID); err != nil {
		return All{}, err
	}
	if a.Quiet, err = e.settings.Quiet(ctx, teamID); err != nil {
		return All{}, err
	}
	if a.CarrierFailover, err = e.settings.CarrierFailover(ctx, teamID); err != nil {
		return All{}, err
	}
	return a, nil
}

// Change applies p: the fields given change together, in one
// transaction, or none does. It returns the settings as they then are.
func (e *Editor) Change(ctx context.Context, teamID string, p Patch) (All, error) {
	var a All
	err := e.tx.Tx(ctx, func(ctx context.Context) error {
		var err error
		if p.QuietHours != nil {
			if _, err = e.settings.SetQuietHours(ctx, teamID, *p.QuietHours); err != nil {
				return err
			}
		}
		if p.CarrierFailover != nil {
			if err = e.settings.SetCarrierFailover(ctx, teamID, *p.CarrierFailover); err != nil {
				return err
			}
		}
		if _, err = e.help.SetHelpText(ctx, teamID, p.HelpText); err != nil {
			return err
		}
		a, err = e.All(ctx, teamID)
		return err
	})
	if err != nil {
		return All{}, err
	}
	return a, nil
}
