-- Custom SQL migration file, put your code below! --
-- Search follows the caller's workspace (issue 16): FTS5 cannot seek a doclist to a rowid range (it walks
-- every entry before the range, ~50 ms for a common word at 1M rows), but it intersects two terms by seeking
-- the longer doclist. So every row also indexes its workspace as a term, `ws<id>`, in a column of its own
-- (`ws`, bm25 weight 0), and a search matches `{ws}: "ws<id>" AND {reference_id title description}: (...)`:
-- the walk is as long as the caller's workspace, not the database. FTS5 cannot add a column, so the table is
-- recreated (same rowids as 0002, same tokenizer), filled from the entity tables, and the triggers replaced.
DROP TRIGGER IF EXISTS `epics_fts_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `epics_fts_update`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `epics_fts_delete`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `user_stories_fts_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `user_stories_fts_update`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `user_stories_fts_delete`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `requirements_fts_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `requirements_fts_update`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `requirements_fts_delete`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `acceptance_criteria_fts_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `acceptance_criteria_fts_update`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `acceptance_criteria_fts_delete`;
--> statement-breakpoint
DROP TABLE `search_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_fts` USING fts5(reference_id, title, description, ws, kind UNINDEXED, workspace_id UNINDEXED, entity_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  SELECT workspace_id * 4294967296 + id * 8 + 1, reference_id, title, description, 'ws' || workspace_id, 'epic', workspace_id, id FROM `epics`;
--> statement-breakpoint
INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  SELECT workspace_id * 4294967296 + id * 8 + 2, reference_id, title, description, 'ws' || workspace_id, 'user_story', workspace_id, id FROM `user_stories`;
--> statement-breakpoint
INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  SELECT workspace_id * 4294967296 + id * 8 + 3, reference_id, title, description, 'ws' || workspace_id, 'requirement', workspace_id, id FROM `requirements`;
--> statement-breakpoint
INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  SELECT workspace_id * 4294967296 + id * 8 + 4, reference_id, title, description, 'ws' || workspace_id, 'acceptance_criterion', workspace_id, id FROM `acceptance_criteria`;
--> statement-breakpoint
CREATE TRIGGER `epics_fts_insert` AFTER INSERT ON `epics` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  VALUES (new.workspace_id * 4294967296 + new.id * 8 + 1, new.reference_id, new.title, new.description, 'ws' || new.workspace_id, 'epic', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `epics_fts_update` AFTER UPDATE OF reference_id, title, description ON `epics` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `epics_fts_delete` AFTER DELETE ON `epics` BEGIN
  DELETE FROM search_fts WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_fts_insert` AFTER INSERT ON `user_stories` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  VALUES (new.workspace_id * 4294967296 + new.id * 8 + 2, new.reference_id, new.title, new.description, 'ws' || new.workspace_id, 'user_story', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_fts_update` AFTER UPDATE OF reference_id, title, description ON `user_stories` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 2;
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_fts_delete` AFTER DELETE ON `user_stories` BEGIN
  DELETE FROM search_fts WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 2;
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_insert` AFTER INSERT ON `requirements` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  VALUES (new.workspace_id * 4294967296 + new.id * 8 + 3, new.reference_id, new.title, new.description, 'ws' || new.workspace_id, 'requirement', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_update` AFTER UPDATE OF reference_id, title, description ON `requirements` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 3;
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_delete` AFTER DELETE ON `requirements` BEGIN
  DELETE FROM search_fts WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 3;
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_fts_insert` AFTER INSERT ON `acceptance_criteria` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, ws, kind, workspace_id, entity_id)
  VALUES (new.workspace_id * 4294967296 + new.id * 8 + 4, new.reference_id, new.title, new.description, 'ws' || new.workspace_id, 'acceptance_criterion', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_fts_update` AFTER UPDATE OF reference_id, title, description ON `acceptance_criteria` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 4;
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_fts_delete` AFTER DELETE ON `acceptance_criteria` BEGIN
  DELETE FROM search_fts WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 4;
END;
