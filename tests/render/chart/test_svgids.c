/* An SVG's surface ids renumbered in order of first appearance, and
 * nothing else touched: the same chart gives the same bytes whatever cairo
 * drew before it in the process. */
#include "testutil.h"

#include <string.h>

#include "svgids.h"

static void renumbered(const char *in, const char *want)
{
	cg_sink *s = cg_sink_memory();
	cg_svg_write_renumbered(s, in, strlen(in));
	size_t n;
	assert_string_equal(cg_sink_data(s, &n), want);
	cg_sink_close(s, NULL);
}

static void ids_are_numbered_from_one_in_order_of_appearance(void **state)
{
	renumbered("<g id=\"surface1160\"><g id=\"surface7\"><use xlink:href=\"#surface1160\"/>"
		   "<rect fill=\"url(#surface7)\"/></g></g>",
		   "<g id=\"surface1\"><g id=\"surface2\"><use xlink:href=\"#surface1\"/>"
		   "<rect fill=\"url(#surface2)\"/></g></g>");
}

static void image_ids_are_numbered_apart_from_surfaces(void **state)
{
	/* the ranks heat map embeds an image: cairo counts those separately */
	renumbered("<image id=\"image2098\" width=\"8\"/><g id=\"surface40\"><use xlink:href=\"#image2098\"/>"
		   "<image id=\"image2100\"/></g> \"images3\" \"image\"",
		   "<image id=\"image1\" width=\"8\"/><g id=\"surface1\"><use xlink:href=\"#image1\"/>"
		   "<image id=\"image2\"/></g> \"images3\" \"image\"");
}

static void other_text_is_left_alone(void **state)
{
	/* not an id: no quote or '#' before, no digits, letters after, at the end */
	renumbered("<a>surface12</a> xsurface3\" \"surface\" \"surfaces9\" \"surface4x\" #surface",
		   "<a>surface12</a> xsurface3\" \"surface\" \"surfaces9\" \"surface4x\" #surface");
	renumbered("", "");
	renumbered("\"surface99", "\"surface99");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_are_numbered_from_one_in_order_of_appearance),
		cmocka_unit_test(image_ids_are_numbered_apart_from_surfaces),
		cmocka_unit_test(other_text_is_left_alone),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
