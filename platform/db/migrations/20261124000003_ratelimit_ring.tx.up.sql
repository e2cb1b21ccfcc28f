-- The rate-limit log becomes a fixed ring: hits holds the last M admitted
-- timestamps (M = the policy's largest limit, NULL where unused) and pos counts
-- admissions, so hits[((pos - k) % M) + 1] is the k-th most recent one. A check
-- reads one element per rule and writes one, whatever M is. Rows written by the
-- sliding log (pos NULL) are turned into rings on their next check.
ALTER TABLE platform_rate_limits ADD COLUMN pos bigint;
