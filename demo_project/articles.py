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


CHINESE_NEWS = {
    "rice": ARTICLES["rice"],
    "metro": """\
城市地铁新线路开通运营

本报讯 经过五年建设，连接城市东部新区和老城中心的地铁六号线昨天正式开通运营。
新线路全长三十二公里，共设二十四座车站，其中换乘站七座，从起点到终点全程约需五十分钟。
开通首日，不少市民专程赶来体验，早高峰期间各站客流平稳有序。

据运营公司介绍，六号线采用六节编组列车，最高运行速度每小时八十公里，高峰时段行车间隔
为三分钟。车厢内设置了无障碍区域和母婴专座，所有车站均配备直升电梯和盲道，
方便老年人和残障人士出行。为缓解换乘压力，部分换乘站还增设了临时引导人员。

家住东部新区的王女士说，以前到老城区上班要换乘两次公交车，路上需要一个半小时，
现在坐地铁只要四十分钟，每天可以多睡半个小时。附近的商户也对新线路充满期待，
一家面馆的老板表示，地铁开通后周边人流明显增加，他准备延长营业时间。

交通部门表示，六号线开通后，城市轨道交通运营总里程将突破三百公里，
公共交通在市民出行中所占的比例有望进一步提高。下一步，有关部门将优化地面公交线路，
加强地铁站与公交站之间的衔接，并在部分车站周边建设自行车停放点，
解决市民出行“最后一公里”的问题。

专家提醒，新线路开通初期，乘客应提前了解换乘方式和首末班车时间，
遇到客流高峰时听从工作人员指挥，有序排队乘车，注意站台安全。""",
    "library": """\
社区图书馆延长开放时间受居民欢迎

为满足居民日益增长的阅读需求，本市二十家社区图书馆从本月起将开放时间延长至晚上九点，
周末和节假日照常开放。这一措施实施以来，晚间到馆读者数量比去年同期增长了将近一倍，
不少上班族和中学生成为夜间阅读的常客。

记者在一家社区图书馆看到，阅览区几乎座无虚席，有人安静地翻阅报刊，有人在电脑前查阅资料，
儿童阅读角里，几位家长正陪着孩子读绘本。图书馆工作人员介绍，为配合延长开放，
馆里调整了排班制度，并招募了三十多名志愿者协助整理图书、维持秩序。

除了延长开放时间，各社区图书馆还推出了线上预约借书服务。读者可以通过手机查询馆藏，
预约后到附近任何一家社区图书馆取书，还书也可以就近办理。据统计，服务上线三个月来，
通借通还的图书已超过五万册。一位退休教师告诉记者，她每周都会借几本历史书，
现在不用跑到市中心的大图书馆，在家门口就能借到想看的书。

文化部门负责人表示，下一步将继续加大对社区图书馆的投入，每年更新图书不少于十万册，
并定期举办读书分享会、科普讲座和亲子阅读活动，让图书馆真正成为居民身边的文化客厅。""",
    "market": """\
老街农贸市场完成升级改造重新开业

经过半年的升级改造，位于老街的农贸市场近日重新开业。改造后的市场划分为蔬菜水果、
肉类水产、粮油副食和熟食四个区域，地面铺设了防滑地砖，顶部安装了通风和照明设备，
原来潮湿拥挤、气味难闻的环境得到了明显改善。

市场管理方介绍，此次改造共设置摊位一百八十个，所有摊位统一安装了电子秤和价格显示屏，
顾客可以清楚地看到商品的名称、产地和价格。市场入口处还设立了农产品快速检测室，
每天对蔬菜和水果进行抽样检测，检测结果在电子屏上实时公布，让市民买得放心。

不少老顾客对市场的新面貌表示满意。一位在附近住了三十年的老人说，
以前来买菜总要踩着积水，现在环境干净整洁，摊主们的服务态度也更好了。
一位卖了十多年蔬菜的摊主告诉记者，改造后来买菜的年轻人多了，
他还开通了手机下单和送货上门服务，生意比以前更好。

据了解，今年全市将完成十五个农贸市场的改造任务，重点解决环境卫生、消防安全和食品安全等问题。
商务部门表示，将建立长效管理机制，定期对改造后的市场进行检查，
防止出现“改造一阵子、脏乱一辈子”的现象。""",
}


def chinese_reprint(name: str) -> str:
    """A reprint as Chinese portals carry them: new headline, a few characters changed,
    and an editor line."""
    headline, body = CHINESE_NEWS[name].split("\n", 1)
    body = body.replace("记者", "本网记者", 1).replace("表示", "指出", 1)
    return f"【热点】{headline}（转载）\n{body}\n（来源：网络 责任编辑：李华）"
