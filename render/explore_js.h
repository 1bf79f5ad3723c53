/* render/js/explore.js and explore_views.js as one C string, and its SHA-256 in base64: written
 * at build time by render/js/embed.cmake into the build folder. */
#ifndef CG_EXPLORE_JS_H
#define CG_EXPLORE_JS_H

extern const char cg_explore_js[];
extern const char cg_explore_js_sha256[];

#endif
