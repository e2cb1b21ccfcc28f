// Package campaignsapi is the campaigns module's contract for other modules.
package campaignsapi

// CodeCampaignState is the spec's 409 for an action the campaign's status
// does not allow (§7).
const CodeCampaignState = "campaign_state"
