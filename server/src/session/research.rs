//! `research`: many pages (the URLs given, or the active page's result
//! links) digested in parallel, with progress per page, and kept as tabs
//! on request. Invariant: progress messages are redacted as results are,
//! and a kept tab that does not load is closed, never left blank.

use url::Url;

use super::{Fail, Session, ToolOutput, invalid_args, private};
use crate::backend::{BrowseError, Navigation};
use crate::research::{self, ResearchOptions};
use crate::tools::ResearchArgs;

/// Chromium tabs `research` renders pages that need scripts in at once.
const RENDER_TABS: usize = 3;

impl Session {
    pub(super) async fn research(&mut self, args: ResearchArgs) -> Result<ToolOutput, Fail> {
        if args.budget == Some(0) || args.limit == Some(0) {
            return Err(invalid_args("budget and limit must be at least 1"));
        }
        let options = ResearchOptions {
            budget: args.budget.unwrap_or(research::DEFAULT_BUDGET),
            limit: args.limit.map_or(research::DEFAULT_LIMIT, |l| (l as usize).min(research::MAX_LIMIT)),
            ..ResearchOptions::default()
        };
        let urls: Vec<String> = match args.urls {
            Some(urls) if urls.is_empty() => return Err(invalid_args("urls is empty: give some, or none to open the active page's results")),
            Some(urls) => urls,
            None => {
                let tab = &mut self.tabs[self.active];
                if tab.page.url().is_none() {
                    return Err(BrowseError::new("no_page", "no urls and no page open: give urls, or navigate to a results page first"));
                }
                let a = tab.page.analysis(&mut self.refs).await?;
                let links = whittle_engine::result_links(&a.document, &a.styles, &a.semantics, options.limit);
                if links.is_empty() {
                    return Err(BrowseError::new("not_found", "the active page has no result links: give urls"));
                }
                links.into_iter().map(String::from).collect()
            }
        };
        let total = urls.len().min(options.limit) as u32;
        let mut progress = self.progress.take();
        // Progress messages carry page titles: they leave as the results do.
        let vault = &mut self.vault;
        vault.set_site(None);
        let mut on_page = |page: &research::PageResult, done: usize| {
            if let Some(p) = progress.as_mut() {
                let mut what = if page.ok { page.title.clone() } else { "failed".to_owned() };
                private(vault, &mut what);
                (p.0)(done as u32, total, &format!("[{}] {what}", page.index));
            }
        };
        let mut text = String::new();
        let render = match (args.scripts == Some(true), self.backend.chromium()) {
            (false, _) => None,
            (true, Some(chromium)) => Some(research::Renderer::new(chromium, self.context.clone(), RENDER_TABS)),
            (true, None) => {
                text.push_str("⚠ scripts: this server does not use Chromium; pages that need scripts are digested as served\n");
                None
            }
        };
        let result = research::research_with(&self.context.fetcher, &urls, &options, render, &mut on_page).await;
        text.insert_str(0, &result.text(options.budget, options.limit));
        if args.keep == Some(true) {
            for page in result.pages.iter().filter(|p| p.ok) {
                let Some(url) = page.opened.clone() else { continue };
                match self.keep_as_tab(url).await {
                    Ok(i) => text.push_str(&format!("⧉ [{}] kept as tab {}\n", page.index, i + 1)),
                    Err(e) => {
                        text.push_str(&format!("✗ [{}] not kept: {}\n", page.index, e.message));
                        if e.code == "too_many_tabs" {
                            break;
                        }
                    }
                }
            }
        }
        self.answer("research", text).await
    }

    /// Opens `url` in a new tab (not made active); a tab that does not
    /// load is closed again, never left blank.
    async fn keep_as_tab(&mut self, url: Url) -> Result<usize, BrowseError> {
        let i = self.open_tab().await?;
        match self.tabs[i].page.navigate(Navigation::To(url), false).await {
            Ok(_) => Ok(i),
            Err(e) => {
                // The new tab is the last one.
                self.tabs.pop();
                Err(e)
            }
        }
    }
}
