-- Custom SQL migration file, put your code below! --
-- Full-text search (DESIGN): one FTS5 table over reference id, title and description of every entity kind,
-- so bm25 ranks across kinds; rowid = entity id * 8 + kind code (epic 1, user_story 2, requirement 3,
-- acceptance_criterion 4) keeps trigger maintenance a rowid lookup. kind, workspace_id and entity_id are
-- UNINDEXED columns: filter them after MATCH.
CREATE VIRTUAL TABLE `search_fts` USING fts5(reference_id, title, description, kind UNINDEXED, workspace_id UNINDEXED, entity_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `epics_fts_insert` AFTER INSERT ON `epics` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, kind, workspace_id, entity_id)
  VALUES (new.id * 8 + 1, new.reference_id, new.title, new.description, 'epic', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `epics_fts_update` AFTER UPDATE OF reference_id, title, description ON `epics` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.id * 8 + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `epics_fts_delete` AFTER DELETE ON `epics` BEGIN
  DELETE FROM search_fts WHERE rowid = old.id * 8 + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_fts_insert` AFTER INSERT ON `user_stories` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, kind, workspace_id, entity_id)
  VALUES (new.id * 8 + 2, new.reference_id, new.title, new.description, 'user_story', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_fts_update` AFTER UPDATE OF reference_id, title, description ON `user_stories` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.id * 8 + 2;
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_fts_delete` AFTER DELETE ON `user_stories` BEGIN
  DELETE FROM search_fts WHERE rowid = old.id * 8 + 2;
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_insert` AFTER INSERT ON `requirements` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, kind, workspace_id, entity_id)
  VALUES (new.id * 8 + 3, new.reference_id, new.title, new.description, 'requirement', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_update` AFTER UPDATE OF reference_id, title, description ON `requirements` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.id * 8 + 3;
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_delete` AFTER DELETE ON `requirements` BEGIN
  DELETE FROM search_fts WHERE rowid = old.id * 8 + 3;
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_fts_insert` AFTER INSERT ON `acceptance_criteria` BEGIN
  INSERT INTO search_fts(rowid, reference_id, title, description, kind, workspace_id, entity_id)
  VALUES (new.id * 8 + 4, new.reference_id, new.title, new.description, 'acceptance_criterion', new.workspace_id, new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_fts_update` AFTER UPDATE OF reference_id, title, description ON `acceptance_criteria` BEGIN
  UPDATE search_fts SET reference_id = new.reference_id, title = new.title, description = new.description
  WHERE rowid = new.id * 8 + 4;
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_fts_delete` AFTER DELETE ON `acceptance_criteria` BEGIN
  DELETE FROM search_fts WHERE rowid = old.id * 8 + 4;
END;
--> statement-breakpoint
-- Docset pages: an external-content FTS5 table (the text is stored once, in docset_pages).
CREATE VIRTUAL TABLE `docset_pages_fts` USING fts5(path, title, content, content = 'docset_pages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `docset_pages_fts_insert` AFTER INSERT ON `docset_pages` BEGIN
  INSERT INTO docset_pages_fts(rowid, path, title, content) VALUES (new.id, new.path, new.title, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `docset_pages_fts_update` AFTER UPDATE OF path, title, content ON `docset_pages` BEGIN
  INSERT INTO docset_pages_fts(docset_pages_fts, rowid, path, title, content) VALUES ('delete', old.id, old.path, old.title, old.content);
  INSERT INTO docset_pages_fts(rowid, path, title, content) VALUES (new.id, new.path, new.title, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `docset_pages_fts_delete` AFTER DELETE ON `docset_pages` BEGIN
  INSERT INTO docset_pages_fts(docset_pages_fts, rowid, path, title, content) VALUES ('delete', old.id, old.path, old.title, old.content);
END;
