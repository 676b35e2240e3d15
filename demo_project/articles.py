"""Articles for the demo, written for this project. Each is an original; reprints are derived."""

ARTICLES = {
    "harbour": """\
City council approves new ferry link across the harbour

The city council voted on Tuesday to fund a passenger ferry between the old fish market and
the northern business district, ending a decade of debate about how to relieve the crowded
bridge. Two electric vessels, each carrying up to two hundred passengers, will run every
twenty minutes during the morning and evening peaks.

Supporters said the crossing would take eleven minutes, against forty by bus on a bad day.
Opponents questioned the operating subsidy, which the transport department puts at four
million a year for the first five years, and asked whether the piers could cope with winter
storms. The harbour master told councillors that both landing stages would be rebuilt with
floating pontoons that rise and fall with the tide.

Construction of the pontoons is expected to start in the spring, and the first sailings are
planned for the following autumn, once crews have finished their training.""",
    "library": """\
Village library reopens after flood repairs

Eighteen months after the river burst its banks and filled the reading room with mud, the
village library opened its doors again on Saturday morning. Volunteers dried, cleaned and
catalogued more than six thousand books that could be saved, while a regional grant paid for
new shelving raised half a metre above the old floor.

The children's corner now sits on the upper floor, and the local history collection, which
includes parish registers going back three centuries, has moved into a sealed cabinet. The
librarian said the building would also serve as a warm space on winter evenings, with free
tea, a homework club and a repair café where residents can bring broken lamps and radios.""",
    "rice": """\
水稻新品种在南方试种成功

记者从省农业科学院获悉，由该院培育的耐高温水稻新品种近日在南方五个县完成试种。
试验田数据显示，在连续高温的条件下，新品种的结实率比常规品种高出百分之十五，
每亩平均增产约六十公斤。

课题组负责人介绍，研究团队历时八年，从上千份种质资源中筛选出耐热基因，
再通过常规杂交方法将其导入主栽品种。新品种的米质达到国家优质稻谷标准，
煮出的米饭口感软糯，适合南方消费者的饮食习惯。

农业部门表示，明年将在更大范围内推广种植，并组织技术人员下乡指导农民
调整播种时间和田间管理方式，帮助种植户应对日益频繁的极端天气。

在试种现场，不少种植大户对新品种表现出浓厚兴趣。一位从事水稻种植二十多年的农民说，
去年夏天持续高温，自家稻田的空壳率明显上升，收成减少了将近三成；今年换种新品种后，
稻穗饱满，估计每亩能多收一百多斤。他希望种子公司能够尽快扩大生产，保证明年春耕的供应。

专家同时提醒，耐高温品种并不意味着可以忽视水肥管理。高温时段应当适当加深田间水层，
合理控制氮肥用量，并注意防治稻飞虱等病虫害。省农业科学院还将联合气象部门建立预警机制，
在高温天气来临之前通过手机短信向种植户发送提示，减少灾害造成的损失。""",
}


def reprint(name: str) -> str:
    """The article as another site would carry it: new headline and an editor line."""
    body = ARTICLES[name].split("\n", 1)[1]
    if name == "rice":
        return "【转载】耐高温水稻试种成功" + body + "\n（责任编辑：张明）"
    return "REPRINT: " + ARTICLES[name].split("\n", 1)[0].upper() + body + "\nEdited by J. Smith."
