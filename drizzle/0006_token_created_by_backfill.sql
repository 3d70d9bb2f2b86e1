-- Custom SQL migration file, put your code below! --
-- Backfill tokens.created_by_user_id for tokens minted through the admin API before the column existed.
-- The admin API audits every token it mints in the same transaction ('tokens.create', channel 'admin',
-- target 'token:<id>', user_id = the minting admin); tokens of the admin CLI and bootstrap have no such row
-- and keep null. Without this, a token minted for an instance owner by a workspace admin before the fix
-- would still carry the owner's powers (http/auth.ts carriesOwnerPowers).
UPDATE `tokens` SET `created_by_user_id` = (
  SELECT `a`.`user_id` FROM `audit_events` `a`
  WHERE `a`.`method` = 'tokens.create' AND `a`.`channel` = 'admin' AND `a`.`target` = 'token:' || `tokens`.`id`
    AND `a`.`user_id` IS NOT NULL
  ORDER BY `a`.`id` LIMIT 1
)
WHERE `created_by_user_id` IS NULL AND EXISTS (
  SELECT 1 FROM `audit_events` `a`
  WHERE `a`.`method` = 'tokens.create' AND `a`.`channel` = 'admin' AND `a`.`target` = 'token:' || `tokens`.`id`
    AND `a`.`user_id` IS NOT NULL
);
